// /health's and the status page's view of broker connectivity, from the record core keeps
// (kafka/broker-connectivity.ts), without a broker: during an outage, after it, and never.
import { describe, expect, it } from 'vitest';
import { type BrokerHealth, brokerHealth, degradedReason } from '../src/index.ts';

// The page's module is plain browser JavaScript (no types); imported by URL, as the browser does.
const { brokerText } = (await import(new URL('../src/page/broker-line.js', import.meta.url).href)) as {
  brokerText(broker: BrokerHealth | undefined): string;
};

const SINCE = Date.UTC(2026, 11, 6, 4, 0, 0);

describe('broker health', () => {
  it('during an outage: degraded, with since when, how long and the last error', () => {
    const broker = brokerHealth({
      reachable: false,
      outage: { since: SINCE, durationMs: 42_000, lastError: 'Connection error: ECONNREFUSED', failures: 7 },
    });
    expect(broker).toEqual({
      reachable: false,
      outage: {
        since: '2026-12-06T04:00:00.000Z',
        durationMs: 42_000,
        lastError: 'Connection error: ECONNREFUSED',
        failures: 7,
      },
    });
    expect(degradedReason(broker)).toBe(
      'no Kafka broker has answered since 2026-12-06T04:00:00.000Z (42 s; last error: Connection error: ECONNREFUSED); the app retries by itself',
    );
    expect(brokerText(broker)).toMatch(
      /^Kafka unreachable since .* \(42\.0 s, 7 failures\) · last error: Connection error: ECONNREFUSED$/,
    );
  });

  it('after it: healthy, the last outage with start, end and duration', () => {
    const broker = brokerHealth({
      reachable: true,
      lastOutage: {
        since: SINCE,
        until: SINCE + 61_500,
        durationMs: 61_500,
        lastError: 'Closed connection',
        failures: 30,
      },
    });
    expect(degradedReason(broker)).toBeUndefined();
    expect(broker.lastOutage).toEqual({
      since: '2026-12-06T04:00:00.000Z',
      until: '2026-12-06T04:01:01.500Z',
      durationMs: 61_500,
      lastError: 'Closed connection',
      failures: 30,
    });
    expect(brokerText(broker)).toMatch(
      /^Kafka reachable · last outage .*–.* \(61\.5 s\) · last error: Closed connection$/,
    );
  });

  it('never an outage: healthy, and the page says so', () => {
    const broker = brokerHealth({ reachable: true });
    expect(broker).toEqual({ reachable: true });
    expect(degradedReason(broker)).toBeUndefined();
    expect(brokerText(broker)).toBe('Kafka reachable · no outage seen');
    expect(brokerText(undefined)).toBe('');
  });
});

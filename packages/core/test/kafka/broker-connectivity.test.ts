import { logLevel } from 'kafkajs';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { BrokerConnectivity, isUnreachableError } from '../../src/kafka/broker-connectivity.ts';
import { pinoLogCreator } from '../../src/kafka/client.ts';
import { TransientConditions } from '../../src/kafka/transient-conditions.ts';

function clock() {
  const c = { t: 1_000_000, now: () => c.t };
  return c;
}

describe('BrokerConnectivity', () => {
  it('is reachable, with no outage, until a request fails', () => {
    expect(new BrokerConnectivity().snapshot()).toEqual({ reachable: true });
  });

  it('keeps since when the broker is away, the last error and how long it has lasted', () => {
    const c = clock();
    const record = new BrokerConnectivity({ now: c.now });
    record.failed(new Error('Connection error: ECONNREFUSED'));
    c.t += 20_000;
    record.failed('Connection timeout');
    expect(record.snapshot()).toEqual({
      reachable: false,
      outage: { since: 1_000_000, durationMs: 20_000, lastError: 'Connection timeout', failures: 2 },
    });
  });

  it('after the first answer: the last outage with its start, end and duration', () => {
    const c = clock();
    const record = new BrokerConnectivity({ now: c.now });
    record.failed('Connection error');
    c.t += 60_000;
    record.answered();
    c.t += 5_000;
    record.answered();
    expect(record.snapshot()).toEqual({
      reachable: true,
      lastOutage: {
        since: 1_000_000,
        until: 1_060_000,
        durationMs: 60_000,
        lastError: 'Connection error',
        failures: 1,
      },
    });
  });

  it('a failure soon after the end continues that outage; a later one is a new outage', () => {
    const c = clock();
    const record = new BrokerConnectivity({ now: c.now, mergeMs: 10_000 });
    record.failed('Connection error');
    c.t += 60_000;
    record.answered();
    c.t += 2_000; // a request sent while the broker was away fails late
    record.failed('Closed connection');
    expect(record.snapshot().outage).toMatchObject({ since: 1_000_000, durationMs: 62_000, failures: 2 });
    expect(record.snapshot().lastOutage).toBeUndefined();
    record.answered();
    c.t += 30_000;
    record.failed('Connection error');
    const s = record.snapshot();
    expect(s.outage).toMatchObject({ since: 1_092_000, durationMs: 0, failures: 1 });
    expect(s.lastOutage).toMatchObject({ since: 1_000_000, until: 1_062_000, durationMs: 62_000 });
  });
});

describe('isUnreachableError', () => {
  it('connection failures, also wrapped after kafkajs retries, count; broker answers do not', () => {
    expect(
      isUnreachableError(Object.assign(new Error('Connection error: x'), { name: 'KafkaJSConnectionError' })),
    ).toBe(true);
    const wrapped = Object.assign(new Error('retries exceeded'), {
      name: 'KafkaJSNumberOfRetriesExceeded',
      originalError: Object.assign(new Error('Request Produce timed out'), {
        name: 'KafkaJSRequestTimeoutError',
      }),
    });
    expect(isUnreachableError(wrapped)).toBe(true);
    expect(
      isUnreachableError(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })),
    ).toBe(true);
    const answered = Object.assign(new Error('The group is rebalancing'), {
      name: 'KafkaJSProtocolError',
      type: 'REBALANCE_IN_PROGRESS',
    });
    expect(isUnreachableError(answered)).toBe(false);
  });
});

describe("kafkajs' logs", () => {
  it('a connection error kafkajs logs (and retries itself) opens an outage; other errors do not', () => {
    const record = new BrokerConnectivity();
    const log = pinoLogCreator(
      pino({ level: 'silent' }),
      new TransientConditions(),
      undefined,
      record,
    )(logLevel.ERROR);
    const entry = (message: string, error: string) =>
      log({
        namespace: 'Connection',
        level: logLevel.ERROR,
        label: 'ERROR',
        log: { timestamp: '', logger: 'kafkajs', message, error },
      });
    entry('Response Metadata(key: 3, version: 6)', 'This server does not host this topic-partition');
    expect(record.snapshot().reachable).toBe(true);
    entry('Connection error: connect ECONNREFUSED 127.0.0.1:1', 'connect ECONNREFUSED 127.0.0.1:1');
    expect(record.snapshot().outage?.lastError).toMatch(/ECONNREFUSED/);
  });
});

// The async operators' metrics (issue 41) as /metrics serves them for a real app on the real
// broker: records in flight while calls wait, then the calls, the timeout and their latency; and
// the same counts in app.metrics().

import { KafkaStreams, Serdes, StreamsBuilder } from '@kstreams/core';
import { afterAll, describe, expect, it } from 'vitest';
import { testBrokers, testKafka, topicsForThisFile, uniqueName } from '../../../scripts/test/kafka.ts';
import { startHttpServer } from '../src/index.ts';

const topics = topicsForThisFile();
const S = Serdes.String();
const TIMEOUT_MS = 3_000;

async function waitFor(cond: () => Promise<boolean> | boolean, timeoutMs: number, what: string) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

/** The one sample of `name` for task 0_0 in a scrape, or undefined. */
function sample(text: string, name: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes('task_id="0_0"'));
  return line === undefined ? undefined : Number(line.split(' ').at(-1));
}

describe('async operator metrics', () => {
  let app: KafkaStreams | undefined;
  afterAll(async () => {
    await app?.close({ timeoutMs: 20_000 });
  });

  it('/metrics shows records in flight per task, then calls, timeouts and latency; app.metrics() the same', async () => {
    const input = await topics.create('async-metrics-in', 1);
    const output = await topics.create('async-metrics-out', 1);
    const applicationId = uniqueName('async-metrics-app');
    topics.cleanUpPrefix(applicationId);

    // Calls wait for `open`; the value `hang` never answers and times out.
    let open!: () => void;
    const gate = new Promise<void>((r) => {
      open = r;
    });
    const builder = new StreamsBuilder();
    builder
      .stream(input, { keySerde: S, valueSerde: S })
      .mapValuesAsync(
        async (value: string, _key, { signal }) => {
          if (value === 'hang')
            await new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
          await gate;
          return value.toUpperCase();
        },
        { maxInFlight: 10, timeoutMs: TIMEOUT_MS },
      )
      .to(output, { keySerde: S, valueSerde: S });
    const server = await startHttpServer({ app: () => app, port: 0, host: '127.0.0.1' });
    const scrape = async () => (await fetch(`http://127.0.0.1:${server.port}/metrics`)).text();
    try {
      app = new KafkaStreams(builder.build(), {
        applicationId,
        brokers: testBrokers(),
        processingExceptionHandler: 'logAndContinue',
        logger: 'silent',
      });
      await app.start();
      const producer = testKafka().producer();
      await producer.connect();
      await producer.send({
        topic: input,
        messages: Array.from({ length: 4 }, (_, i) => ({ key: `k${i}`, value: `v${i}` })),
      });

      // The four calls wait: four records in flight in task 0_0, no call finished yet.
      await waitFor(
        async () => sample(await scrape(), 'kstreams_stream_task_async_in_flight') === 4,
        30_000,
        '4 records in flight in /metrics',
      );
      expect(app.metrics()).toMatchObject({ asyncInFlight: 4, asyncCompleted: 0, asyncTimeouts: 0 });
      const waiting = await scrape();
      expect(waiting).toContain('# TYPE kstreams_stream_task_async_in_flight gauge');
      expect(sample(waiting, 'kstreams_stream_task_async_calls_total')).toBeUndefined();

      open();
      await producer.send({ topic: input, messages: [{ key: 'k9', value: 'hang' }] });
      await producer.disconnect();
      await waitFor(() => app!.metrics().asyncCompleted === 5, TIMEOUT_MS + 30_000, '5 calls finished');

      const text = await scrape();
      expect(sample(text, 'kstreams_stream_task_async_in_flight')).toBe(0);
      expect(sample(text, 'kstreams_stream_task_async_calls_total')).toBe(5);
      expect(sample(text, 'kstreams_stream_task_async_timeouts_total')).toBe(1);
      expect(text).toContain('# TYPE kstreams_stream_task_async_timeouts_total counter');
      // The timed-out call lasted its timeout; the average is over the five calls.
      expect(sample(text, 'kstreams_stream_task_async_latency_max')).toBeGreaterThanOrEqual(TIMEOUT_MS - 1);
      const avg = sample(text, 'kstreams_stream_task_async_latency_avg')!;
      expect(avg).toBeGreaterThanOrEqual((TIMEOUT_MS - 1) / 5);
      expect(avg).toBeLessThan(TIMEOUT_MS);
      expect(app.metrics()).toMatchObject({ asyncInFlight: 0, asyncCompleted: 5, asyncTimeouts: 1 });
      expect(app.metrics().skippedRecords).toBe(1);
    } finally {
      await server.close();
    }
  }, 120_000);
});

// The plugin over a real app on the real broker: /health goes 503 -> 200 through start-up and back
// to 503 when the app fails; /metrics and /status describe the running app.

import { KafkaStreams, Serdes, StreamsBuilder } from '@kstreams/core';
import { afterAll, describe, expect, it } from 'vitest';
import { testBrokers, testKafka, topicsForThisFile } from '../../../scripts/test/kafka.ts';
import { type InstanceStatus, startHttpServer } from '../src/index.ts';

const topics = topicsForThisFile();
const fatalDecoder = new TextDecoder('utf-8', { fatal: true });
/** UTF-8 that refuses malformed bytes: one bad record puts the app into ERROR (logAndFail). */
const strictUtf8 = Serdes.from(
  (s: string) => Buffer.from(s, 'utf8'),
  (b) => fatalDecoder.decode(b),
);

async function waitFor(cond: () => Promise<boolean>, timeoutMs: number, what: string) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

describe('the kstreams HTTP plugin', () => {
  let app: KafkaStreams | undefined;
  afterAll(async () => {
    await app?.close({ timeoutMs: 20_000 });
  });

  it('answers /health 503 until RUNNING, 200 then, 503 after the app fails; /metrics and /status describe it', async () => {
    const { input, output, applicationId } = await topics.forApp('http', 2);
    const builder = new StreamsBuilder();
    builder
      .stream(input, { keySerde: Serdes.String(), valueSerde: strictUtf8 })
      .mapValues((v) => v.toUpperCase())
      .to(output, { keySerde: Serdes.String(), valueSerde: Serdes.String() });
    const server = await startHttpServer({ app: () => app, port: 0, host: '127.0.0.1' });
    const base = `http://127.0.0.1:${server.port}`;
    try {
      const health = async () => {
        const res = await fetch(`${base}/health`);
        return { code: res.status, body: (await res.json()) as { status: string } };
      };
      // Before the app exists, and while it starts.
      expect(await health()).toEqual({ code: 503, body: expect.objectContaining({ status: 'CREATED' }) });
      app = new KafkaStreams(builder.build(), {
        applicationId,
        brokers: testBrokers(),
        applicationServer: `127.0.0.1:${server.port}`,
        logger: 'silent',
      });
      const seen: Array<{ code: number; status: string }> = [];
      const starting = app.start();
      await waitFor(
        async () => {
          const h = await health();
          seen.push({ code: h.code, status: h.body.status });
          return h.code === 200;
        },
        60_000,
        '/health 200',
      );
      await starting;
      expect(seen[0]).toEqual({ code: 503, status: 'REBALANCING' });
      expect(seen.at(-1)).toEqual({ code: 200, status: 'RUNNING' });
      expect(seen.every((s) => (s.code === 200) === (s.status === 'RUNNING'))).toBe(true);

      const producer = testKafka().producer();
      await producer.connect();
      await producer.send({
        topic: input,
        messages: Array.from({ length: 50 }, (_, i) => ({ key: `k${i}`, value: `line ${i}` })),
      });
      await waitFor(
        async () =>
          /kstreams_stream_thread_process_total\{[^}]*\} 50\n/.test(
            await (await fetch(`${base}/metrics`)).text(),
          ),
        60_000,
        '50 records processed in /metrics',
      );
      const metrics = await fetch(`${base}/metrics`);
      expect(metrics.headers.get('content-type')).toMatch(/^text\/plain; version=0.0.4/);
      const text = await metrics.text();
      expect(text).toMatch(/kstreams_client_state\{[^}]*state="RUNNING"[^}]*\} 1\n/);
      expect(text).toContain('# TYPE kstreams_consumer_records_lag gauge');

      const status = (await (await fetch(`${base}/status`)).json()) as InstanceStatus;
      expect(status.state).toBe('RUNNING');
      expect(status.applicationServer).toBe(`127.0.0.1:${server.port}`);
      const tasks = status.threads[0]!.activeTasks;
      expect(tasks.map((t) => [t.taskId, t.state])).toEqual([
        ['0_0', 'RUNNING'],
        ['0_1', 'RUNNING'],
      ]);
      expect(tasks.flatMap((t) => t.topicPartitions.map((p) => `${p.topic}:${p.partition}`))).toEqual([
        `${input}:0`,
        `${input}:1`,
      ]);
      expect(tasks.reduce((n, t) => n + t.processTotal, 0)).toBe(50);
      expect(status.topology).toContain('flowchart TD');

      // A record that cannot be deserialized under logAndFail: the app goes to ERROR.
      await producer.send({ topic: input, messages: [{ key: 'bad', value: Buffer.from([0xff, 0xfe]) }] });
      await producer.disconnect();
      await waitFor(async () => (await health()).code === 503, 60_000, '/health 503 after the failure');
      await waitFor(async () => app!.state === 'ERROR', 30_000, 'ERROR');
      const failed = await health();
      expect(failed).toEqual({ code: 503, body: expect.objectContaining({ status: 'ERROR' }) });
      expect((await fetch(`${base}/health/live`)).status).toBe(503);
      expect(((await (await fetch(`${base}/status`)).json()) as InstanceStatus).error).toMatch(/deserializ/i);
    } finally {
      await server.close();
    }
  }, 120_000);
});

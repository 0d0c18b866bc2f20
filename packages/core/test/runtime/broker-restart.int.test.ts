// exactly_once across a broker restart: the broker is stopped and started again while the app
// processes, and the app recovers by itself with exact output. Runs its own broker on spare
// ports so that stopping it disturbs no other test.
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokerOptions, start, stop } from '../../../../scripts/kafka/broker.ts';
import { ChildApp, prepareChildApp } from './child-app.ts';
import { countSequences, produce, readTopic, tempStateDir, uniqueName, waitFor } from './kafka-helpers.ts';
import { countWords, makeLines } from './text-fixtures.ts';

const opts = brokerOptions({ ...process.env, KAFKA_PORT: '19492' });
const brokers = `${opts.host}:${opts.port}`;
const kafka = new Kafka({ brokers: [brokers], logLevel: logLevel.NOTHING });
let app: ChildApp | undefined;

beforeAll(async () => {
  await prepareChildApp();
  await start(opts, () => {});
}, 180_000);
afterAll(async () => {
  await app?.kill();
  await stop(opts, { clean: true });
}, 60_000);

describe('exactly_once and a broker restart', () => {
  it('recovers by itself and the output stays exact', async () => {
    const input = uniqueName('restart-in');
    const output = uniqueName('restart-out');
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({
      topics: [
        { topic: input, numPartitions: 4 },
        { topic: output, numPartitions: 4 },
      ],
      waitForLeaders: true,
    });
    await admin.disconnect();
    const lines = makeLines(40_000, 3, 21);
    await produce(
      input,
      lines.map((value, i) => ({ key: String(i), value })),
      kafka,
    );
    app = new ChildApp({
      KAFKA_BROKERS: brokers,
      APPLICATION_ID: uniqueName('restart-app'),
      INPUT_TOPIC: input,
      OUTPUT_TOPIC: output,
      STATE_DIR: tempStateDir(),
      PROCESSING_GUARANTEE: 'exactly_once',
    }).start();
    await waitFor(() => (app!.latestMetrics()?.processedRecords ?? 0) > 5000, 120_000, 'processing to start');

    // Down for longer than the 10 s transaction timeout: the coordinator aborts the open
    // transactions when it is back (fencing their producers), as it did when a loaded CI machine
    // took that long to restart the broker.
    await stop(opts);
    await new Promise((r) => setTimeout(r, 12_000));
    await start(opts, () => {});

    const truth = countWords(lines);
    const total = [...truth.values()].reduce((a, b) => a + b, 0);
    const records = await readTopic(output, (r) => r.length >= total, { timeoutMs: 240_000, kafka });
    const seqs = countSequences(records);
    const wrong = [...truth].filter(([w, n]) => {
      const seq = seqs.get(w) ?? [];
      return seq.length !== n || seq.some((c, i) => c !== i + 1);
    });
    // On failure, say whether output is missing or repeated, and where the app's log is.
    const diagnostics = JSON.stringify({
      read: records.length,
      expected: total,
      wrong: wrong.slice(0, 3).map(([w, n]) => ({ word: w, n, seq: seqs.get(w)?.slice(-10) })),
      alive: app.alive,
      state: app.state,
      metrics: app.latestMetrics(),
      log: app.logFile,
    });
    expect(wrong.slice(0, 5), diagnostics).toEqual([]);
    expect(records.length).toBe(total);
    expect(app.alive).toBe(true);
  }, 420_000);
});

// A broker restart: the broker is stopped and started again while the app processes, and the app
// recovers by itself, with exact output under exactly_once and no loss under at_least_once. Runs
// its own broker on spare ports so that stopping it disturbs no other test.
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokerOptions, start, stop } from '../../../../scripts/kafka/broker.ts';
import { ChildApp, prepareChildApp } from './child-app.ts';
import {
  countSequences,
  createTopics,
  highestCounts,
  produce,
  readTopic,
  stopAfterEach,
  tempStateDir,
  uniqueName,
  waitFor,
} from './kafka-helpers.ts';
import { countWords, makeLines } from './text-fixtures.ts';

const opts = brokerOptions({ ...process.env, KAFKA_PORT: '19492' });
const brokers = `${opts.host}:${opts.port}`;
const kafka = new Kafka({ brokers: [brokers], logLevel: logLevel.NOTHING });
const children = stopAfterEach((child: ChildApp) => child.kill());

beforeAll(async () => {
  await prepareChildApp();
  await start(opts, () => {});
}, 180_000);
afterAll(() => stop(opts, { clean: true }), 60_000);

/** Starts the app on 40,000 lines, and stops the broker for 12 s while the app processes them. */
async function restartBrokerWhileProcessing(guarantee: 'exactly_once' | 'exactly_once_v2' | 'at_least_once') {
  const input = uniqueName('restart-in');
  const output = uniqueName('restart-out');
  await createTopics(kafka, [
    { topic: input, numPartitions: 4 },
    { topic: output, numPartitions: 4 },
  ]);
  const lines = makeLines(40_000, 3, 21);
  await produce(
    input,
    lines.map((value, i) => ({ key: String(i), value })),
    kafka,
  );
  const child = new ChildApp({
    KAFKA_BROKERS: brokers,
    APPLICATION_ID: uniqueName('restart-app'),
    INPUT_TOPIC: input,
    OUTPUT_TOPIC: output,
    STATE_DIR: tempStateDir(),
    PROCESSING_GUARANTEE: guarantee,
  }).start();
  children.push(child);
  await waitFor(() => (child.latestMetrics()?.processedRecords ?? 0) > 5000, 120_000, 'processing to start');

  // Down for longer than the 10 s transaction timeout: the coordinator aborts the open
  // transactions when it is back (fencing their producers), as it did when a loaded CI machine
  // took that long to restart the broker.
  await stop(opts);
  await new Promise((r) => setTimeout(r, 12_000));
  await start(opts, () => {});

  const truth = countWords(lines);
  const total = [...truth.values()].reduce((a, b) => a + b, 0);
  return { child, output, truth, total };
}

/** The app has given up (ERROR or exited): waiting longer for its output would only burn time. */
function stopped(child: ChildApp): boolean {
  return !child.alive || child.state === 'ERROR';
}

/** On failure, say what is missing or repeated, and where the app's log is. */
function diagnostics(child: ChildApp, read: number, wrong: unknown[]): string {
  return JSON.stringify({
    read,
    wrong: wrong.slice(0, 3),
    alive: child.alive,
    state: child.state,
    metrics: child.latestMetrics(),
    log: child.logFile,
  });
}

describe('a broker restart while the app processes', () => {
  it.each(['exactly_once', 'exactly_once_v2'] as const)(
    '%s: recovers by itself and the output stays exact',
    async (guarantee) => {
      const { child, output, truth, total } = await restartBrokerWhileProcessing(guarantee);
      const records = await readTopic(output, (r) => r.length >= total || stopped(child), {
        timeoutMs: 240_000,
        kafka,
      });
      const seqs = countSequences(records);
      const wrong = [...truth]
        .filter(([w, n]) => {
          const seq = seqs.get(w) ?? [];
          return seq.length !== n || seq.some((c, i) => c !== i + 1);
        })
        .map(([w, n]) => ({ word: w, n, seq: seqs.get(w)?.slice(-10) }));
      expect(wrong.slice(0, 5), diagnostics(child, records.length, wrong)).toEqual([]);
      expect(records.length).toBe(total);
      expect(child.alive).toBe(true);
    },
    420_000,
  );

  it('at_least_once: recovers by itself and loses no word', async () => {
    const { child, output, truth } = await restartBrokerWhileProcessing('at_least_once');
    // Replays after the restart may count some words twice; none may be counted short.
    const { highest, update } = highestCounts();
    const records = await readTopic(
      output,
      (r) => {
        update(r);
        return [...truth].every(([w, n]) => (highest.get(w) ?? 0) >= n) || stopped(child);
      },
      { timeoutMs: 240_000, kafka },
    );
    const wrong = [...truth]
      .filter(([w, n]) => (highest.get(w) ?? 0) < n)
      .map(([w, n]) => ({ word: w, n, highest: highest.get(w) ?? 0 }));
    expect(wrong.slice(0, 5), diagnostics(child, records.length, wrong)).toEqual([]);
    expect([...highest.keys()].filter((w) => !truth.has(w))).toEqual([]);
    expect(child.alive).toBe(true);
  }, 420_000);
});

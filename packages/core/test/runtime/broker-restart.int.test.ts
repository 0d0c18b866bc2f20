// A broker restart: the broker is stopped and started again while the app processes, and the app
// recovers by itself, with exact output under exactly_once and no loss under at_least_once. Runs
// its own broker on spare ports so that stopping it disturbs no other test. One app per guarantee,
// all three through the same restart: one 12 s stop for the file instead of one per guarantee.
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { type BrokerOptions, brokerOptions, start, stop } from '../../../../scripts/kafka/broker.ts';
import { freePort } from '../../../../scripts/test/free-port.ts';
import { ChildApp, prepareChildApp } from './child-app.ts';
import {
  countSequences,
  createTopics,
  highestCounts,
  produce,
  readTopic,
  tempStateDir,
  uniqueName,
  waitFor,
} from './kafka-helpers.ts';
import { countWords, makeLines } from './text-fixtures.ts';

// Free ports, picked when the file starts: a fixed port (19492 before 2026-12-06) is one broker
// home for every checkout on the machine, so two runs at once stopped each other's broker.
let opts: BrokerOptions;
let brokers: string;
let kafka: Kafka;
// Killed after the file, not after each test: the tests run at once, each reading its app's output.
const children: ChildApp[] = [];

beforeAll(async () => {
  const port = await freePort();
  let controllerPort = await freePort();
  while (controllerPort === port) controllerPort = await freePort();
  opts = brokerOptions({
    ...process.env,
    KAFKA_PORT: String(port),
    KAFKA_CONTROLLER_PORT: String(controllerPort),
  });
  brokers = `${opts.host}:${opts.port}`;
  kafka = new Kafka({ brokers: [brokers], logLevel: logLevel.NOTHING });
  await prepareChildApp();
  await start(opts, () => {});
}, 180_000);
afterAll(async () => {
  await Promise.all(children.map((child) => child.kill()));
  await stop(opts, { clean: true });
}, 60_000);

type Guarantee = 'exactly_once' | 'exactly_once_v2' | 'at_least_once';
const GUARANTEES: Guarantee[] = ['exactly_once', 'exactly_once_v2', 'at_least_once'];
let restarted: Promise<Map<Guarantee, Started>> | undefined;
type Started = Awaited<ReturnType<typeof startApp>>;

/**
 * One app per guarantee on 40,000 lines each; once every one has processed 5,000 records, the
 * broker stops for 12 s. Run once for the file, whichever test asks first.
 */
function restartBrokerWhileProcessing(): Promise<Map<Guarantee, Started>> {
  restarted ??= (async () => {
    const apps = new Map<Guarantee, Started>();
    for (const guarantee of GUARANTEES) apps.set(guarantee, await startApp(guarantee));
    await waitFor(
      () => [...apps.values()].every(({ child }) => (child.latestMetrics()?.processedRecords ?? 0) > 5000),
      120_000,
      'processing to start in every app',
    );
    // Down for longer than the 10 s transaction timeout: the coordinator aborts the open
    // transactions when it is back (fencing their producers), as it did when a loaded CI machine
    // took that long to restart the broker.
    await stop(opts);
    await new Promise((r) => setTimeout(r, 12_000));
    await start(opts, () => {});
    return apps;
  })();
  return restarted;
}

/** Starts the app on 40,000 lines of its own topic. */
async function startApp(guarantee: Guarantee) {
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

describe.concurrent('a broker restart while the app processes', () => {
  it.for(['exactly_once', 'exactly_once_v2'] as const)(
    '%s: recovers by itself and the output stays exact',
    { timeout: 420_000 },
    async (guarantee, { expect }) => {
      const { child, output, truth, total } = (await restartBrokerWhileProcessing()).get(guarantee)!;
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
  );

  it('at_least_once: recovers by itself and loses no word', async ({ expect }) => {
    const { child, output, truth } = (await restartBrokerWhileProcessing()).get('at_least_once')!;
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

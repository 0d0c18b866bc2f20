// Suppression on the real broker with real child processes (issue 12): a windowed count suppressed
// until its windows close, 3 instances, several SIGKILLs and restarts. Read read_committed, under
// exactly_once every window's final result appears exactly once with the true count (the buffer
// is a store with its own changelog, in the task's transaction), also when the windows follow the
// event time a TimestampExtractor reads from the values (issue 38); under at_least_once no window
// is lost.
import { describe, expect, it } from 'vitest';
import { topicsForThisFile } from '../../../../scripts/test/kafka.ts';
import { childAppsForThisFile, killAndRestart } from './child-app.ts';
import { SUPPRESS_WINDOW_MS } from './fixtures/suppressed-count-topology.ts';
import { produce, type ReadRecord, readTopic } from './kafka-helpers.ts';
import { prng } from './text-fixtures.ts';

const topics = topicsForThisFile();
const children = childAppsForThisFile();

const PARTITIONS = 3;
const RECORDS = Number(process.env.SUPPRESS_KILL_RECORDS ?? 60_000);
const KEYS = 30;
/** Records are 2 ms apart: 500 per window, spread over the keys. */
const STEP_MS = 2;

interface Run {
  output: string;
  /** "key@windowStart" -> the true count. */
  truth: Map<string, number>;
}

type Guarantee = 'exactly_once' | 'exactly_once_v2' | 'at_least_once';
const TAGS: Record<Guarantee, string> = {
  exactly_once: 'eos',
  exactly_once_v2: 'eos2',
  at_least_once: 'alo',
};

async function killRun(guarantee: Guarantee, topology = 'suppressed-windowed-count'): Promise<Run> {
  const exactlyOnce = guarantee !== 'at_least_once';
  const eventTime = topology === 'event-time-suppressed-windowed-count';
  const tag = `${TAGS[guarantee]}${topology === 'suppressed-windowed-count' ? '' : eventTime ? '-et' : '-close'}`;
  const { input, output, applicationId } = await topics.forApp(`suppress-${tag}`, PARTITIONS);
  const base = Math.floor(Date.now() / SUPPRESS_WINDOW_MS) * SUPPRESS_WINDOW_MS - 3_600_000;
  const truth = new Map<string, number>();
  const records = Array.from({ length: RECORDS }, (_, i) => {
    const key = `k${i % KEYS}`;
    const timestamp = base + i * STEP_MS;
    const window = `${key}@${timestamp - (timestamp % SUPPRESS_WINDOW_MS)}`;
    truth.set(window, (truth.get(window) ?? 0) + 1);
    // Each key stays in one partition, in timestamp order (no late records but the flush). With
    // the event time in the value the Kafka timestamps run backwards: read, they would make every
    // record but the first late.
    if (eventTime)
      return {
        key,
        value: `${i}:${timestamp}`,
        timestamp: base - i * STEP_MS,
        partition: (i % KEYS) % PARTITIONS,
      };
    return { key, value: String(i), timestamp, partition: (i % KEYS) % PARTITIONS };
  });
  // Stream time must pass the last windows' close: a late "flush" record per partition. Its own
  // window never closes, so it has no final result.
  const flushAt = base + RECORDS * STEP_MS + 10 * SUPPRESS_WINDOW_MS;
  for (let p = 0; p < PARTITIONS; p++)
    records.push({
      key: `flush${p}`,
      value: `flush:${flushAt}`,
      timestamp: eventTime ? base : flushAt,
      partition: p,
    });
  await produce(input, records);

  const env = {
    APPLICATION_ID: applicationId,
    INPUT_TOPIC: input,
    OUTPUT_TOPIC: output,
    TOPOLOGY: topology,
    PROCESSING_GUARANTEE: guarantee,
    COMMIT_INTERVAL_MS: exactlyOnce ? '100' : '500',
  };
  const apps = [0, 1, 2].map(() => children.create(env).start());
  const rand = prng(exactlyOnce ? 5 : 13);
  // Kill a random instance every few seconds while the windows are being counted, then restart it
  // (its LevelDB state survives, as after a crash; the restore replays the changelogs' tails).
  await killAndRestart(apps, rand, { rounds: 3, pause: [2500, 2000], down: [300, 1000] });
  return { output, truth };
}

const decode = (records: ReadRecord[]) =>
  records.map((r) => ({ window: r.key, count: Number(r.value.readBigInt64BE(0)) }));

const allWindowsSeen = (truth: Map<string, number>) => (records: ReadRecord[]) => {
  const seen = new Set(records.map((r) => r.key));
  return [...truth.keys()].every((w) => seen.has(w));
};

function expectExactlyOnce(truth: Map<string, number>, results: { window: string; count: number }[]) {
  const byWindow = new Map<string, number[]>();
  for (const { window, count } of results) byWindow.set(window, [...(byWindow.get(window) ?? []), count]);
  const wrong = [...truth]
    .filter(([w, n]) => byWindow.get(w)?.length !== 1 || byWindow.get(w)![0] !== n)
    .map(([w, n]) => `${w}: expected [${n}], got [${byWindow.get(w) ?? ''}]`);
  expect(wrong.slice(0, 5)).toEqual([]);
  expect([...byWindow.keys()].filter((w) => !truth.has(w))).toEqual([]);
  expect(results).toHaveLength(truth.size);
}

describe('suppress(untilWindowCloses) across SIGKILLs', () => {
  // exactly_once_v2: the tests' word-count app turns on the transaction per thread with it.
  it.each(['exactly_once', 'exactly_once_v2'] as const)(
    '%s: every window has exactly one final result, the true count',
    async (guarantee) => {
      const { output, truth } = await killRun(guarantee);
      const results = decode(
        await readTopic(output, allWindowsSeen(truth), { timeoutMs: 120_000, settleMs: 3000 }),
      );
      expectExactlyOnce(truth, results);
    },
    180_000,
  );

  it('exactly_once with EmitStrategy.onWindowClose instead: the same, exactly once each', async () => {
    const { output, truth } = await killRun('exactly_once', 'emit-on-close-windowed-count');
    const results = decode(
      await readTopic(output, allWindowsSeen(truth), { timeoutMs: 120_000, settleMs: 3000 }),
    );
    expectExactlyOnce(truth, results);
  }, 180_000);

  it('exactly_once on the event time a TimestampExtractor reads from the values: the same, exactly once each', async () => {
    const { output, truth } = await killRun('exactly_once', 'event-time-suppressed-windowed-count');
    const results = decode(
      await readTopic(output, allWindowsSeen(truth), { timeoutMs: 120_000, settleMs: 3000 }),
    );
    expectExactlyOnce(truth, results);
  }, 180_000);

  it('at_least_once: no window is lost (duplicates allowed)', async () => {
    const { output, truth } = await killRun('at_least_once');
    const results = decode(
      await readTopic(output, allWindowsSeen(truth), { timeoutMs: 120_000, settleMs: 3000 }),
    );
    const counts = new Map<string, number[]>();
    for (const { window, count } of results) counts.set(window, [...(counts.get(window) ?? []), count]);
    const lost = [...truth.keys()].filter((w) => !counts.has(w));
    expect(lost).toEqual([]);
    const withTrueCount = [...truth].filter(([w, n]) => counts.get(w)!.includes(n)).length;
    console.log(
      `[suppress at_least_once] ${results.length} final results for ${truth.size} windows: ` +
        `${results.length - truth.size} duplicates, ${withTrueCount} windows with a result of the true count`,
    );
  }, 180_000);
});

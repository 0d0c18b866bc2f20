// Liveness under rebalances and crashes (issue 17): instances are SIGKILLed while the group is
// still forming and while it rebalances, input keeps arriving in chunks, and afterwards every input
// and repartition partition's committed offset must reach the end of its log within a bounded time:
// a task that stops committing while its app says RUNNING fails this test.
import { describe, expect, it } from 'vitest';
import { topicsForThisFile } from '../../../../scripts/test/kafka.ts';
import { childAppsForThisFile } from './child-app.ts';
import { countSequences, highestCounts, produce, readTopic } from './kafka-helpers.ts';
import { committedLag } from './lag.ts';
import { countWords, makeLines, prng } from './text-fixtures.ts';

const topics = topicsForThisFile();
const children = childAppsForThisFile();

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** After the last kill, the committed offsets must reach the log ends within this. */
const DRAIN_BOUND_MS = 60_000;

type Guarantee = 'at_least_once' | 'exactly_once';

async function chaos(guarantee: Guarantee, instances: number, seed: number) {
  const tag = `${guarantee === 'exactly_once' ? 'eos' : 'alo'}${instances}`;
  const { input, output, applicationId } = await topics.forApp(`live-${tag}`, 8, 4);
  const lines = makeLines(24_000, 3, seed);
  const chunks = 8;
  const env = {
    APPLICATION_ID: applicationId,
    INPUT_TOPIC: input,
    OUTPUT_TOPIC: output,
    PROCESSING_GUARANTEE: guarantee,
    // A long at_least_once interval, like its 30 s default: the commit a rebalance triggers is then
    // often a task's only one after its last record, the commit that must not be lost.
    COMMIT_INTERVAL_MS: guarantee === 'exactly_once' ? '100' : '10000',
  };
  const apps = Array.from({ length: instances }, () => children.create(env).start());
  const rand = prng(seed);
  // Input in chunks while the group forms; the kills go on after the last chunk, so that some
  // tasks have processed all their input when a rebalance makes their commit fail.
  const feeding = (async () => {
    const size = Math.ceil(lines.length / chunks);
    for (let c = 0; c < chunks; c++) {
      await produce(
        input,
        lines.slice(c * size, (c + 1) * size).map((value, i) => ({ key: `${c}-${i}`, value })),
      );
      await sleep(500);
    }
  })();
  // The first kill lands while the group is still forming; each later one shortly after the
  // previous victim came back, i.e. while the group rebalances to take it in.
  await sleep(1000 + rand() * 1500);
  for (let k = 0; k < 4; k++) {
    const victim = apps[Math.floor(rand() * apps.length)]!;
    await victim.kill();
    await sleep(300 + rand() * 1200);
    victim.start();
    await sleep(1500 + rand() * 2500);
  }
  const lastKill = Date.now();
  await feeding;

  const repartition = (t: string) => t.startsWith(applicationId) && t.endsWith('-repartition');
  const lag = await committedLag(applicationId, [input], repartition, DRAIN_BOUND_MS);
  const drainedMs = Date.now() - lastKill;
  console.log(
    `[liveness ${tag}] committed offsets reached the log ends ${drainedMs} ms after the last kill` +
      (lag.behind.length > 0 ? `; still behind: ${lag.behind.join(', ')}` : ''),
  );
  expect(lag.behind).toEqual([]);
  expect(lag.partitions).toBeGreaterThanOrEqual(8 + 4);
  return { output, truth: countWords(lines) };
}

describe('liveness: kills while the group forms and rebalances', () => {
  it.each([
    ['at_least_once', 2, 17],
    ['at_least_once', 3, 23],
  ] as const)(
    '%s with %i instances: every committed offset reaches the end; nothing is lost',
    async (guarantee, n, seed) => {
      const { output, truth } = await chaos(guarantee, n, seed);
      const highest = highestCounts();
      await readTopic(output, (rs) => [...truth].every(([w, c]) => (highest.update(rs).get(w) ?? 0) >= c), {
        timeoutMs: 30_000,
      });
      const short = [...truth].filter(([w, c]) => (highest.highest.get(w) ?? 0) < c);
      expect(short).toEqual([]);
    },
    240_000,
  );

  it.each([
    ['exactly_once', 2, 29],
    ['exactly_once', 3, 31],
  ] as const)(
    '%s with %i instances: every committed offset reaches the end; counts are exact',
    async (guarantee, n, seed) => {
      const { output, truth } = await chaos(guarantee, n, seed);
      const total = [...truth.values()].reduce((a, b) => a + b, 0);
      const records = await readTopic(output, (r) => r.length >= total, {
        timeoutMs: 30_000,
        settleMs: 1000,
      });
      const seqs = countSequences(records);
      const wrong = [...truth].filter(([w, c]) => {
        const seq = seqs.get(w) ?? [];
        return seq.length !== c || seq.some((v, i) => v !== i + 1);
      });
      expect(wrong.map(([w]) => w).slice(0, 5)).toEqual([]);
      expect(records).toHaveLength(total);
    },
    240_000,
  );
});

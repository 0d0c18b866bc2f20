// Asynchronous processors (issue 41) on the real broker: three instances of an app whose records
// all go through mapValuesAsync, SIGKILLed and restarted while calls are in flight. Under
// exactly_once every input record's result is in the output once, and each key's results are in
// its input order; under at_least_once none is lost.
import { describe, expect, it } from 'vitest';
import { topicsForThisFile } from '../../../../scripts/test/kafka.ts';
import { childAppsForThisFile, killAndRestart } from './child-app.ts';
import { produce, type ReadRecord, readTopic } from './kafka-helpers.ts';
import { prng } from './text-fixtures.ts';

const topics = topicsForThisFile();
const children = childAppsForThisFile();

const KEYS = 40;
const RECORDS = Number(process.env.ASYNC_KILL_RECORDS ?? 16_000);

/** Per key, the sequence numbers of its results, in the order read (one partition per key). */
function sequences(records: ReadRecord[]): Map<string, number[]> {
  const byKey = new Map<string, number[]>();
  for (const r of [...records].sort((a, b) => a.partition - b.partition || a.offset - b.offset)) {
    const value = r.value.toString();
    expect(value).toMatch(/^\d+:done$/);
    const seq = byKey.get(r.key) ?? [];
    if (seq.length === 0) byKey.set(r.key, seq);
    seq.push(Number.parseInt(value, 10));
  }
  return byKey;
}

async function killRun(guarantee: 'exactly_once' | 'exactly_once_v2' | 'at_least_once') {
  const tag = { exactly_once: 'eos', exactly_once_v2: 'eos2', at_least_once: 'alo' }[guarantee];
  const { input, output, applicationId } = await topics.forApp(`async-kill-${tag}`, 4);
  // Key k's records carry 0, 1, 2, ... in input order.
  await produce(
    input,
    Array.from({ length: RECORDS }, (_, i) => ({ key: `k${i % KEYS}`, value: String(Math.floor(i / KEYS)) })),
  );
  const env = {
    APPLICATION_ID: applicationId,
    INPUT_TOPIC: input,
    OUTPUT_TOPIC: output,
    TOPOLOGY: 'async-sequence',
    PROCESSING_GUARANTEE: guarantee,
    COMMIT_INTERVAL_MS: guarantee === 'at_least_once' ? '1000' : '100',
  };
  const apps = [0, 1, 2].map(() => children.create(env).start());
  const rand = prng(guarantee === 'at_least_once' ? 3 : 5);
  const kills = await killAndRestart(apps, rand, { rounds: 3, pause: [3000, 2000], down: [500, 1000] });
  const perKey = RECORDS / KEYS;
  const records = await readTopic(
    output,
    (r) => {
      if (r.length < RECORDS) return false;
      const seen = sequences(r);
      return [...seen.values()].every((s) => new Set(s).size === perKey);
    },
    { timeoutMs: 240_000, settleMs: 2_000 },
  );
  return { records, kills, perKey };
}

describe('async processors: SIGKILLs while calls are in flight', () => {
  it.each(['exactly_once', 'exactly_once_v2'] as const)(
    '%s: every result once, each key in its input order',
    async (guarantee) => {
      const { records, kills, perKey } = await killRun(guarantee);
      expect(kills).toBe(3);
      expect(records).toHaveLength(RECORDS);
      const expected = Array.from({ length: perKey }, (_, i) => i);
      const wrong = [...sequences(records)].filter(([, seq]) => seq.join() !== expected.join());
      expect(wrong.map(([key, seq]) => `${key}: ${seq.slice(0, 10).join()}...`)).toEqual([]);
      expect(sequences(records).size).toBe(KEYS);
    },
    400_000,
  );

  it('at_least_once: nothing lost (duplicates allowed)', async () => {
    const { records, perKey } = await killRun('at_least_once');
    const seqs = sequences(records);
    expect(seqs.size).toBe(KEYS);
    for (const [key, seq] of seqs) expect([key, new Set(seq).size]).toEqual([key, perKey]);
  }, 400_000);
});

// Asynchronous processors (issue 41) on the real broker: three instances of an app whose records
// all go through mapValuesAsync, SIGKILLed and restarted while calls are in flight. Under
// exactly_once every input record's result is in the output once, and each key's results are in
// its input order; under at_least_once none is lost.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { topicsForThisFile } from '../../../../scripts/test/kafka.ts';
import { ChildApp, prepareChildApp } from './child-app.ts';
import {
  produce,
  type ReadRecord,
  readTopic,
  stopAfterEach,
  testBrokers,
  uniqueName,
} from './kafka-helpers.ts';
import { prng } from './text-fixtures.ts';

const topics = topicsForThisFile();
const children = stopAfterEach((child: ChildApp) => child.kill());
beforeAll(() => prepareChildApp());

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
  const input = await topics.create(`async-kill-${tag}-in`, 4);
  const output = await topics.create(`async-kill-${tag}-out`, 4);
  const applicationId = uniqueName(`async-kill-${tag}`);
  topics.cleanUpPrefix(applicationId);
  // Key k's records carry 0, 1, 2, ... in input order.
  await produce(
    input,
    Array.from({ length: RECORDS }, (_, i) => ({ key: `k${i % KEYS}`, value: String(Math.floor(i / KEYS)) })),
  );
  const env = {
    KAFKA_BROKERS: testBrokers().join(','),
    APPLICATION_ID: applicationId,
    INPUT_TOPIC: input,
    OUTPUT_TOPIC: output,
    TOPOLOGY: 'async-sequence',
    PROCESSING_GUARANTEE: guarantee,
    COMMIT_INTERVAL_MS: guarantee === 'at_least_once' ? '1000' : '100',
  };
  const apps = [0, 1, 2].map(() => {
    const app = new ChildApp({ ...env, STATE_DIR: mkdtempSync(join(tmpdir(), 'kstreams-async-')) });
    children.push(app);
    return app.start();
  });
  const rand = prng(guarantee === 'at_least_once' ? 3 : 5);
  let kills = 0;
  for (let round = 0; round < 3; round++) {
    await new Promise((r) => setTimeout(r, 3000 + rand() * 2000));
    const victim = apps[Math.floor(rand() * apps.length)]!;
    await victim.kill();
    kills++;
    await new Promise((r) => setTimeout(r, 500 + rand() * 1000));
    victim.start();
  }
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

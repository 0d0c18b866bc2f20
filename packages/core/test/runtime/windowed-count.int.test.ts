// A windowed count on the real broker under exactly_once: LevelDB window segments, the changelog
// (compact,delete with the store's retention plus a day), a restore into a wiped state dir, and
// a Java consumer with Kafka Streams' own windowed deserializer reading the same output,
// interactive queries of the window store, retention dropping old segments from disk, and a late
// record counted in the dropped-records metric.
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runJava } from '../../../../scripts/differential/java.ts';
import { topicsForThisFile } from '../../../../scripts/test/kafka.ts';
import {
  KafkaStreams,
  QueryableStoreTypes,
  Serdes,
  StreamsBuilder,
  TimeWindows,
  WindowedSerdes,
} from '../../src/index.ts';
import {
  produce,
  stopAfterEach,
  tempStateDir,
  testBrokers,
  testKafka,
  uniqueName,
  waitFor,
} from './kafka-helpers.ts';

const topics = topicsForThisFile();
const apps = stopAfterEach((app: KafkaStreams) => app.close({ timeoutMs: 30_000 }));
const SIZE = 60_000;
const javaReader = fileURLToPath(
  new URL('../../../../scripts/differential/WindowedReader.java', import.meta.url),
);

interface WindowedRow {
  key: string;
  start: number;
  end: number;
  count: number | null;
  timestamp: number;
  partition: number;
  offset: number;
}

describe('windowed count on the broker', () => {
  it('counts per window exactly once, keeps its changelog as Kafka Streams does, restores it, answers window queries and drops expired segments', async () => {
    const { input, output, applicationId } = await topics.forApp('wc', 2);
    const stateDir = tempStateDir();
    const newApp = () => {
      const builder = new StreamsBuilder();
      builder
        .stream(input, { keySerde: Serdes.String(), valueSerde: Serdes.String() })
        .groupByKey()
        .windowedBy(TimeWindows.ofSizeAndGrace(SIZE, 10 * SIZE))
        .count({ storeName: 'per-minute' })
        .toStream()
        .to(output, { valueSerde: Serdes.Long() });
      const app = new KafkaStreams(builder.build(), {
        applicationId,
        brokers: testBrokers(),
        processingGuarantee: 'exactly_once',
        stateDir,
        // Every update reaches the output (Java reads all 120 of them): no record cache.
        statestoreCacheMaxBytes: 0,
        logger: 'warn',
      });
      apps.push(app);
      return app;
    };
    const base = Math.floor(Date.now() / SIZE) * SIZE - 5 * SIZE;
    // Keys u0..u9, three minutes, 4 records per key and minute.
    const records = (round: number) =>
      Array.from({ length: 120 }, (_, i) => ({
        key: `u${i % 10}`,
        value: `r${round}-${i}`,
        timestamp: base + (Math.floor(i / 40) % 3) * SIZE + (i % 40) * 100,
      }));
    const latest = async () => {
      const serde = WindowedSerdes.timeWindowedSerdeFrom(Serdes.String(), SIZE);
      const consumer = testKafka().consumer({
        groupId: uniqueName(`${applicationId}-reader`),
        readUncommitted: false,
      });
      const seen = new Map<string, number>();
      const rows: WindowedRow[] = [];
      await consumer.connect();
      await consumer.subscribe({ topic: output, fromBeginning: true });
      await consumer.run({
        eachMessage: async ({ partition, message }) => {
          const w = serde.deserialize(message.key!);
          const count = Number(message.value!.readBigInt64BE(0));
          seen.set(`${w.key}@${(w.window.start - base) / SIZE}`, count);
          const { start, end } = w.window;
          const [timestamp, offset] = [Number(message.timestamp), Number(message.offset)];
          rows.push({ key: w.key, start, end, count, timestamp, partition, offset });
        },
      });
      return { seen, rows, stop: () => consumer.disconnect() };
    };

    await produce(input, records(1));
    let app = newApp();
    await app.start();
    let reader = await latest();
    await waitFor(
      () => reader.seen.size === 30 && [...reader.seen.values()].every((n) => n === 4),
      60_000,
      'counts of 4',
    );
    await reader.stop();
    await app.close();

    // Java reads the same records: same windows (start and end), counts and timestamps.
    const byPosition = (a: WindowedRow, b: WindowedRow) => a.partition - b.partition || a.offset - b.offset;
    const java = (
      JSON.parse(runJava(javaReader, [testBrokers().join(','), output, String(SIZE)])) as WindowedRow[]
    ).sort(byPosition);
    expect(java).toHaveLength(120);
    expect(java.every((r) => r.end === r.start + SIZE)).toBe(true);
    expect(java).toEqual([...reader.rows].sort(byPosition));

    const admin = testKafka().admin();
    await admin.connect();
    const changelog = `${applicationId}-per-minute-changelog`;
    const described = await admin.describeConfigs({
      resources: [{ type: 2, name: changelog, configNames: ['cleanup.policy', 'retention.ms'] }],
      includeSynonyms: false,
    });
    await admin.disconnect();
    const config = Object.fromEntries(
      described.resources[0]!.configEntries.map((e) => [e.configName, e.configValue]),
    );
    expect(config).toEqual({
      'cleanup.policy': 'compact,delete',
      'retention.ms': String(11 * SIZE + 86_400_000),
    });

    // Wiped state: the windows come back from the changelog, and the next records add to them.
    rmSync(stateDir, { recursive: true, force: true });
    await produce(input, records(2));
    app = newApp();
    await app.start();
    reader = await latest();
    await waitFor(
      () => reader.seen.size === 30 && [...reader.seen.values()].every((n) => n === 8),
      60_000,
      'counts of 8',
    );

    // Interactive queries of the window store, through the app.
    const windows = app.store('per-minute', QueryableStoreTypes.windowStore<string, number>());
    const starts = [0, 1, 2].map((m) => base + m * SIZE);
    const collect = async <T>(it: AsyncIterable<T>) => {
      const out: T[] = [];
      for await (const x of it) out.push(x);
      return out;
    };
    // Queries read committed state, which the task writes right after Kafka accepted the commit
    // whose output the reader already sees: wait for it rather than race it.
    await waitFor(() => windows.fetch('u9', base + 2 * SIZE) === 8, 10_000, 'the store to apply the commit');
    expect(await collect(windows.fetch('u3', base, base + 2 * SIZE))).toEqual(
      starts.map((timestamp) => ({ timestamp, value: 8 })),
    );
    expect(await collect(windows.backwardFetch('u3', base, base + 2 * SIZE))).toEqual(
      starts.map((timestamp) => ({ timestamp, value: 8 })).reverse(),
    );
    expect(windows.fetch('u3', base + SIZE)).toBe(8);
    expect(windows.fetch('u3', base + 3 * SIZE)).toBeUndefined();
    const firstMinute = await collect(windows.fetchAll(base, base));
    expect(firstMinute.map((e) => e.key.key).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `u${i}`));
    expect(firstMinute.every((e) => e.key.window.end === base + SIZE && e.value === 8)).toBe(true);
    expect(() => app.store('per-minute')).toThrow(/is a window store.*QueryableStoreTypes\.windowStore\(\)/);

    // Retention (11 minutes): once stream time is 30 minutes on, the old windows' segments are
    // gone from disk and queries find nothing for them.
    const storeDirs = () =>
      readdirSync(join(stateDir, applicationId)).flatMap((task) => {
        const dir = join(stateDir, applicationId, task, 'per-minute');
        return existsSync(dir) ? readdirSync(dir).map((segment) => Number(segment.split('.').pop())) : [];
      });
    expect(storeDirs().some((start) => start <= base + 2 * SIZE)).toBe(true);
    await produce(
      input,
      Array.from({ length: 10 }, (_, i) => ({ key: `u${i}`, value: 'later', timestamp: base + 30 * SIZE })),
    );
    await waitFor(() => reader.seen.size === 40, 60_000, 'the windows 30 minutes on');
    await waitFor(
      () => storeDirs().every((start) => start > base + 2 * SIZE),
      30_000,
      'old segments removed',
    );
    expect(storeDirs().length).toBeGreaterThan(0);
    expect(await collect(windows.fetch('u3', base, base + 2 * SIZE))).toEqual([]);
    expect(await collect(windows.fetchAll(0, base + 29 * SIZE))).toEqual([]);
    await waitFor(
      async () => (await collect(windows.fetchAll(base + 30 * SIZE, base + 30 * SIZE))).length === 10,
      10_000,
      'the 10 new windows in the store',
    );

    // A record for a window closed long ago is dropped as late: no output, and the task metadata
    // (and dropped_records_total) count it, so that a missing result can be told from a stall.
    const dropped = () =>
      app
        .metadataForLocalThreads()
        .flatMap((thread) => thread.activeTasks)
        .reduce((sum, task) => sum + task.droppedRecordsTotal, 0);
    expect(dropped()).toBe(0);
    await produce(input, [{ key: 'u0', value: 'late', timestamp: base }]);
    await waitFor(() => dropped() === 1, 30_000, 'the late record counted as dropped');
    expect(reader.seen.size).toBe(40);
    await reader.stop();
  });
});

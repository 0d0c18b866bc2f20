// A windowed count on the real broker under exactly_once: LevelDB window segments, the changelog
// (compact,delete with the store's retention plus a day), and a restore into a wiped state dir.
import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { topicsForThisFile } from '../../../../scripts/test/kafka.ts';
import { KafkaStreams, Serdes, StreamsBuilder, TimeWindows, WindowedSerdes } from '../../src/index.ts';
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

describe('windowed count on the broker', () => {
  it('counts per window exactly once, keeps its changelog as Kafka Streams does, and restores it', async () => {
    const input = await topics.create('wc-in', 2);
    const output = await topics.create('wc-out', 2);
    const applicationId = uniqueName('windowed-app');
    topics.cleanUpPrefix(applicationId);
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
      await consumer.connect();
      await consumer.subscribe({ topic: output, fromBeginning: true });
      await consumer.run({
        eachMessage: async ({ message }) => {
          const w = serde.deserialize(message.key!);
          seen.set(`${w.key}@${(w.window.start - base) / SIZE}`, Number(message.value!.readBigInt64BE(0)));
        },
      });
      return { seen, stop: () => consumer.disconnect() };
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
    await reader.stop();
  });
});

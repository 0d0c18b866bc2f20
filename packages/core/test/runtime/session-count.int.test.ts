// A session-windowed count on the real broker under exactly_once: LevelDB session segments, the
// changelog in Java's session key layout (compact,delete with the store's retention plus a day),
// interactive queries of the session store, and a restore into a wiped state dir that the next
// records extend (the old session's tombstone, then the longer session).
import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { topicsForThisFile } from '../../../../scripts/test/kafka.ts';
import {
  KafkaStreams,
  QueryableStoreTypes,
  Serdes,
  SessionWindows,
  StreamsBuilder,
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
const GAP = 60_000;
const GRACE = 10 * GAP;

describe('session-windowed count on the broker', () => {
  it('counts per session exactly once, keeps a Kafka Streams changelog, answers queries and restores', async () => {
    const { input, output, applicationId } = await topics.forApp('sc', 2);
    const stateDir = tempStateDir();
    const newApp = () => {
      const builder = new StreamsBuilder();
      builder
        .stream(input, { keySerde: Serdes.String(), valueSerde: Serdes.String() })
        .groupByKey()
        .windowedBy(SessionWindows.ofInactivityGapAndGrace(GAP, GRACE))
        .count({ storeName: 'sessions' })
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
    const base = Date.now() - 10 * GAP;
    // Keys u0..u9, 4 records each a second apart per round: round 2 extends round 1's sessions.
    const records = (round: number) =>
      Array.from({ length: 40 }, (_, i) => ({
        key: `u${i % 10}`,
        value: `r${round}-${i}`,
        timestamp: base + ((round - 1) * 4 + Math.floor(i / 10)) * 1000,
      }));
    // The latest value of each session read read_committed; a tombstone removes the session.
    const latest = async () => {
      const serde = WindowedSerdes.sessionWindowedSerdeFrom(Serdes.String());
      const consumer = testKafka().consumer({ groupId: uniqueName('reader'), readUncommitted: false });
      const seen = new Map<string, number>();
      await consumer.connect();
      await consumer.subscribe({ topic: output, fromBeginning: true });
      await consumer.run({
        eachMessage: async ({ message }) => {
          const w = serde.deserialize(message.key!);
          const name = `${w.key}@${w.window.start - base}/${w.window.end - base}`;
          if (message.value === null) seen.delete(name);
          else seen.set(name, Number(message.value.readBigInt64BE(0)));
        },
      });
      return { seen, stop: () => consumer.disconnect() };
    };
    const sessionsOf = (seen: Map<string, number>) => [...seen.entries()].sort();
    const expected = (end: number, count: number) =>
      Array.from({ length: 10 }, (_, k) => [`u${k}@0/${end}`, count]).sort();

    await produce(input, records(1));
    let app = newApp();
    await app.start();
    let reader = await latest();
    await waitFor(
      () => reader.seen.size === 10 && [...reader.seen.values()].every((n) => n === 4),
      60_000,
      '4s',
    );
    expect(sessionsOf(reader.seen)).toEqual(expected(3000, 4));
    await reader.stop();

    // Interactive query: committed sessions of one key, through the session store's face.
    const store = app.store('sessions', QueryableStoreTypes.sessionStore<string, number>());
    const sessionsOfU3 = async () => {
      const found = [];
      for await (const s of store.fetch('u3')) found.push([s.key.start - base, s.key.end - base, s.value]);
      return found;
    };
    // The store applies a commit right after Kafka accepted it, when the reader may already see
    // its output: wait for it rather than race it.
    await waitFor(async () => (await sessionsOfU3()).length > 0, 10_000, 'the store to apply the commit');
    expect(await sessionsOfU3()).toEqual([[0, 3000, 4]]);
    const between = [];
    for await (const s of store.findSessions('u3', base + 3001, base + 10_000)) between.push(s);
    expect(between).toEqual([]);
    expect(() => app.store('sessions', QueryableStoreTypes.windowStore())).toThrow(
      /is a session store, not a window store; query it with QueryableStoreTypes.sessionStore\(\)/,
    );
    await app.close();

    const admin = testKafka().admin();
    await admin.connect();
    const changelog = `${applicationId}-sessions-changelog`;
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
      'retention.ms': String(GAP + GRACE + 86_400_000),
    });

    // Wiped state: the sessions come back from the changelog, and the next records extend them.
    rmSync(stateDir, { recursive: true, force: true });
    await produce(input, records(2));
    app = newApp();
    await app.start();
    reader = await latest();
    await waitFor(
      () => reader.seen.size === 10 && [...reader.seen.values()].every((n) => n === 8),
      60_000,
      '8s',
    );
    expect(sessionsOf(reader.seen)).toEqual(expected(7000, 8));
    await reader.stop();
  });
});

// A pattern source on the real broker (Kafka Streams' stream(Pattern)): the app reads the
// matching topics that exist when it starts, and a matching topic created while it runs joins at
// the next metadata refresh (metadataMaxAgeMs): its records are processed, the earlier topic's
// go on being read, and a topic that does not match stays unread.
import { describe, expect, it } from 'vitest';
import { topicsForThisFile } from '../../../../scripts/test/kafka.ts';
import { KafkaStreams, Serdes, StreamsBuilder } from '../../src/index.ts';
import {
  produce,
  readTopic,
  stopAfterEach,
  tempStateDir,
  testBrokers,
  uniqueName,
  waitFor,
} from './kafka-helpers.ts';

const topics = topicsForThisFile();
const apps = stopAfterEach((app: KafkaStreams) => app.close({ timeoutMs: 30_000 }));
const S = Serdes.String();

describe('pattern source on the broker', () => {
  it('picks up a matching topic created while the app runs, within the refresh interval', async () => {
    const base = uniqueName('pattern');
    topics.cleanUpPrefix(base);
    const first = await topics.create(`${base}-orders-eu`, 2);
    const other = await topics.create(`${base}-returns`, 1);
    const output = await topics.create(`${base}-out`, 1);
    await produce(first, [
      { key: 'a', value: 'eu1', partition: 0 },
      { key: 'b', value: 'eu2', partition: 1 },
    ]);
    const applicationId = uniqueName(`${base}-app`);
    topics.cleanUpPrefix(applicationId);
    const builder = new StreamsBuilder();
    builder
      .stream<string, string>(new RegExp(`${base}-orders-.*`), { keySerde: S, valueSerde: S })
      .mapValues((v) => v.toUpperCase())
      .to(output);
    const refreshMs = 2_000;
    const app = new KafkaStreams(builder.build(), {
      applicationId,
      brokers: testBrokers(),
      stateDir: tempStateDir(),
      defaultKeySerde: S,
      defaultValueSerde: S,
      commitIntervalMs: 200,
      metadataMaxAgeMs: refreshMs,
      logger: 'silent',
    });
    apps.push(app);
    await app.start();
    const values = (records: Array<{ value: Buffer | null }>) =>
      records.map((r) => r.value?.toString()).sort();
    const before = await readTopic(output, (r) => r.length >= 2);
    expect(values(before)).toEqual(['EU1', 'EU2']);

    // Created while the app runs: it matches the pattern (and has as many partitions).
    const second = await topics.create(`${base}-orders-us`, 2);
    const createdAt = Date.now();
    await produce(second, [
      { key: 'c', value: 'us1', partition: 0 },
      { key: 'd', value: 'us2', partition: 1 },
    ]);
    await produce(other, [{ key: 'e', value: 'returned' }]);
    await produce(first, [{ key: 'a', value: 'eu3', partition: 0 }]);
    // At least once: the thread's replacement and the rebalances after it may repeat a record
    // whose offset was not committed yet, so the check is on the distinct values.
    const distinct = (records: Array<{ value: Buffer | null }>) => [...new Set(values(records))];
    const after = await readTopic(output, (r) => distinct(r).length >= 5, { timeoutMs: 60_000 });
    const pickedUpMs = Date.now() - createdAt;
    expect(distinct(after)).toEqual(['EU1', 'EU2', 'EU3', 'US1', 'US2']);
    // The refresh interval, plus the thread's restart and the group's rebalance.
    expect(pickedUpMs).toBeLessThan(refreshMs + 30_000);
    await waitFor(() => app.state === 'RUNNING', 30_000, 'RUNNING');
    // One source node, one task per partition number, reading both topics' partition n.
    const tasks = app
      .metadataForLocalThreads()
      .flatMap((t) =>
        t.activeTasks.map((task) => [...task.topicPartitions].map((p) => `${p.topic}-${p.partition}`).sort()),
      );
    expect(tasks.sort()).toEqual([
      [`${first}-0`, `${second}-0`],
      [`${first}-1`, `${second}-1`],
    ]);
  }, 120_000);

  it('starts with no matching topic yet, and reads the first one created', async () => {
    const base = uniqueName('pattern-none');
    topics.cleanUpPrefix(base);
    const output = await topics.create(`${base}-out`, 1);
    const applicationId = uniqueName(`${base}-app`);
    topics.cleanUpPrefix(applicationId);
    const builder = new StreamsBuilder();
    builder
      .stream<string, string>(new RegExp(`${base}-orders-.*`), { keySerde: S, valueSerde: S })
      .groupByKey()
      .count()
      .toStream()
      .mapValues((n) => String(n))
      .to(output);
    const app = new KafkaStreams(builder.build(), {
      applicationId,
      brokers: testBrokers(),
      stateDir: tempStateDir(),
      defaultKeySerde: S,
      defaultValueSerde: S,
      commitIntervalMs: 200,
      metadataMaxAgeMs: 1_000,
      logger: 'silent',
    });
    apps.push(app);
    await app.start();
    const first = await topics.create(`${base}-orders-eu`, 2);
    await produce(first, [
      { key: 'a', value: 'x', partition: 0 },
      { key: 'a', value: 'y', partition: 0 },
    ]);
    const out = await readTopic(output, (r) => r.some((x) => x.value?.toString() === '2'), {
      timeoutMs: 60_000,
    });
    expect(out.map((r) => [r.key?.toString(), r.value?.toString()]).at(-1)).toEqual(['a', '2']);
  }, 120_000);
});

// KTable.suppress through the test driver: the worked examples of Kafka Streams' docs (the DSL
// guide's "Window Final Results" and "Controlling KTable emit rate", both from KIP-328), buffer
// bounds, tombstones, and the buffer's changelog. The differential harness compares the same
// operators record for record with Kafka Streams itself.
import { InMemoryKeyValueStore } from '@kstreams/state-store';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { StreamsError, TopologyError } from '../../src/errors.ts';
import {
  BufferConfig,
  EmitStrategy,
  StreamsBuilder,
  Suppressed,
  TimeWindows,
} from '../../src/kstream/index.ts';
import type { OutputRecord } from '../../src/processor/internals/records.ts';
import { StreamTask } from '../../src/processor/internals/stream-task.ts';
import { Serdes } from '../../src/serdes/serdes.ts';
import { TopologyTestDriver } from '../../src/testing/index.ts';
import type { Windowed } from '../../src/windowed.ts';

const S = Serdes.String();
const L = Serdes.Long();
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
let driver: TopologyTestDriver | undefined;

afterEach(async () => {
  await driver?.close();
  driver = undefined;
});

const at = (h: number, m: number, s = 0) => h * HOUR + m * MINUTE + s * 1000;
const name = (w: Windowed<string>) => `${w.key}@${w.window.start / MINUTE}-${w.window.end / MINUTE}min`;

describe('Suppressed.untilWindowCloses (DSL guide, "Window Final Results")', () => {
  // grouped.windowedBy(TimeWindows.ofSizeAndGrace(1 hour, 10 minutes)).count()
  //   .suppress(Suppressed.untilWindowCloses(unbounded())).filter((k, count) -> count < 3)
  //   .toStream().foreach(sendAlert)
  function alertTopology() {
    const builder = new StreamsBuilder();
    const finals = builder
      .stream('events', { keySerde: S, valueSerde: S })
      .groupByKey()
      .windowedBy(TimeWindows.ofSizeAndGrace(HOUR, 10 * MINUTE))
      .count()
      .suppress(Suppressed.untilWindowCloses(BufferConfig.unbounded()));
    finals.toStream().selectKey(name).to('final-counts', { valueSerde: L });
    finals
      .filter((_k, count) => count < 3)
      .toStream()
      .selectKey(name)
      .to('alerts', { valueSerde: L });
    return builder.build();
  }

  it('user U with 10 events in 09:00-10:00 gets nothing until 10:10, then exactly one result, 10', async () => {
    driver = new TopologyTestDriver(alertTopology(), { defaultKeySerde: S });
    const events = driver.createInputTopic('events', S, S);
    const finals = driver.createOutputTopic('final-counts', S, L);
    const alerts = driver.createOutputTopic('alerts', S, L);
    for (const m of [0, 10, 20, 30, 40, 50]) await events.pipeInput('U', 'click', at(9, m));
    await events.pipeInput('V', 'click', at(9, 15));
    await events.pipeInput('V', 'click', at(9, 45));
    // Stream time passes the window's end: out-of-order events still count until 10:10.
    await events.pipeInput('W', 'click', at(10, 5));
    for (const m of [55, 58, 59]) await events.pipeInput('U', 'click', at(9, m));
    await events.pipeInput('W', 'click', at(10, 9));
    await events.pipeInput('U', 'click', at(9, 57));
    expect(finals.readRecordsToList()).toEqual([]);
    // 10:10: the 09:00 window closes; one final result per key, in key order, stamped with the
    // latest event in the window.
    await events.pipeInput('X', 'click', at(10, 10));
    expect(finals.readRecordsToList().map((r) => [r.key, r.value, r.timestamp])).toEqual([
      ['U@540-600min', 10, at(9, 59)],
      ['V@540-600min', 2, at(9, 45)],
    ]);
    // As in Kafka Streams, the filter (asked for no old values) forwards a row that does not pass
    // as a deletion: the alert stream sees U's as a tombstone and V's count.
    expect(alerts.readKeyValuesToList()).toEqual([
      { key: 'U@540-600min', value: null },
      { key: 'V@540-600min', value: 2 },
    ]);
    // A late event for the closed window changes nothing: no second "final" result.
    await events.pipeInput('U', 'click', at(9, 30));
    await events.pipeInput('X', 'click', at(10, 50));
    expect(finals.readRecordsToList()).toEqual([]);
    // 11:10 closes the 10:00 window.
    await events.pipeInput('X', 'click', at(11, 10));
    expect(finals.readRecordsToList().map((r) => [r.key, r.value, r.timestamp])).toEqual([
      ['W@600-660min', 2, at(10, 9)],
      ['X@600-660min', 2, at(10, 50)],
    ]);
  });

  it('hopping windows: each window is emitted once, when its own end plus grace is reached', async () => {
    const builder = new StreamsBuilder();
    builder
      .stream('in', { keySerde: S, valueSerde: S })
      .groupByKey()
      .windowedBy(TimeWindows.ofSizeAndGrace(10, 2).advanceBy(5))
      .count()
      .suppress(Suppressed.untilWindowCloses(BufferConfig.unbounded()))
      .toStream()
      .selectKey((w) => `${w.key}@${w.window.start}`)
      .to('out', { valueSerde: L });
    driver = new TopologyTestDriver(builder.build(), { defaultKeySerde: S });
    const input = driver.createInputTopic('in', S, S);
    const out = driver.createOutputTopic('out', S, L);
    await input.pipeInput('a', '1', 3); // windows [0,10)
    await input.pipeInput('a', '2', 7); // [0,10), [5,15)
    await input.pipeInput('a', '3', 11); // [5,15), [10,20): stream time 11 < 10 + 2
    expect(out.readRecordsToList()).toEqual([]);
    await input.pipeInput('b', '4', 12); // closes [0,10)
    expect(out.readRecordsToList().map((r) => [r.key, r.value, r.timestamp])).toEqual([['a@0', 2, 7]]);
    await input.pipeInput('b', '5', 40); // closes [5,15) and [10,20)
    expect(out.readRecordsToList().map((r) => [r.key, r.value, r.timestamp])).toEqual([
      ['a@5', 2, 11],
      ['b@5', 1, 12],
      ['a@10', 1, 11],
      ['b@10', 1, 12],
    ]);
  });

  it('is only defined for windowed tables, and only with a strict buffer', () => {
    const builder = new StreamsBuilder();
    const table = builder.table('t', { keySerde: S, valueSerde: S });
    expect(() => table.suppress(Suppressed.untilWindowCloses(BufferConfig.unbounded()) as never)).toThrow(
      /only defined for windowed tables.*untilTimeLimit/,
    );
    expect(() => table.suppress(Suppressed.untilWindowCloses(BufferConfig.unbounded()) as never)).toThrow(
      TopologyError,
    );
    expect(() => Suppressed.untilWindowCloses(BufferConfig.maxRecords(5) as never)).toThrow(
      /strict buffer config.*shutDownWhenFull/,
    );
    expect(Suppressed.untilWindowCloses(BufferConfig.maxRecords(5).shutDownWhenFull())).toBeInstanceOf(
      Suppressed,
    );
  });

  it('names the processor and its store as Kafka Streams does, and logs the buffer', () => {
    const builder = new StreamsBuilder();
    const windowed = builder.stream('in').groupByKey().windowedBy(TimeWindows.ofSizeWithNoGrace(10)).count();
    windowed.suppress(Suppressed.untilWindowCloses(BufferConfig.unbounded()));
    windowed.suppress(Suppressed.untilWindowCloses(BufferConfig.unbounded()).withName('finals'));
    const stores = builder
      .build()
      .subtopologies('app')
      .flatMap((s) => s.stores);
    expect(stores.map((s) => [s.name, s.changelogTopic])).toEqual([
      ['KSTREAM-AGGREGATE-STATE-STORE-0000000001', 'app-KSTREAM-AGGREGATE-STATE-STORE-0000000001-changelog'],
      ['KTABLE-SUPPRESS-STATE-STORE-0000000004', 'app-KTABLE-SUPPRESS-STATE-STORE-0000000004-changelog'],
      ['finals-store', 'app-finals-store-changelog'],
    ]);
  });
});

describe("the suppression buffer's changelog", () => {
  it("carries Kafka Streams' v3 values (header v = 3) while buffered, and a tombstone once emitted", async () => {
    const builder = new StreamsBuilder();
    builder
      .stream('in', { keySerde: S, valueSerde: S })
      .groupByKey()
      .windowedBy(TimeWindows.ofSizeWithNoGrace(10))
      .count({ keySerde: S })
      .suppress(Suppressed.untilWindowCloses(BufferConfig.unbounded()).withName('finals'))
      .toStream()
      .selectKey((w) => w.key)
      .to('out', { keySerde: S, valueSerde: L });
    driver = new TopologyTestDriver(builder.build(), { applicationId: 'app' });
    const input = driver.createInputTopic('in', S, S);
    const changelog = driver.createOutputTopic('app-finals-store-changelog', Serdes.Bytes(), Serdes.Bytes());
    await input.pipeInput('k', 'v', 3, { trace: 't1' });
    const [buffered] = changelog.readRecordsToList();
    // The key is the windowed key's bytes: "k", then the window start as int64.
    expect(buffered!.key!.toString('hex')).toBe(`${Buffer.from('k').toString('hex')}${'0'.repeat(16)}`);
    expect(buffered!.headers).toEqual({ v: Buffer.of(3) });
    const value = buffered!.value!;
    // Record context: timestamp 3, offset 0, topic "in", partition 0, one header "trace" = "t1".
    expect(value.subarray(0, 8).readBigInt64BE()).toBe(3n);
    expect(value.subarray(16, 22).toString('hex')).toBe(`00000002${Buffer.from('in').toString('hex')}`);
    expect(value.subarray(26, 30).readInt32BE()).toBe(1);
    // ... then prior (null), old (null), new (count 1 as int64) and the buffer time (window end 10).
    expect(value.subarray(-28).toString('hex')).toBe(
      ['ffffffff', 'ffffffff', '00000008', '0000000000000001', '000000000000000a'].join(''),
    );
    await input.pipeInput('other', 'v', 10);
    const records = changelog.readRecordsToList();
    const tombstone = records.find((r) => r.key!.subarray(0, 1).toString() === 'k');
    expect(tombstone?.value).toBeNull();
    expect(tombstone?.headers).toEqual({});
  });
});

describe('Suppressed.untilTimeLimit (DSL guide, "Controlling KTable emit rate")', () => {
  // groupedTable.count().suppress(untilTimeLimit(ofMinutes(5), maxBytes(1_000_000L).emitEarlyWhenFull()))
  //   .toStream().foreach(updateCountsDatabase): at most one update per key every 5 minutes.
  function rateLimited(bufferConfig: BufferConfig) {
    const builder = new StreamsBuilder();
    builder
      .table('user-regions', { keySerde: S, valueSerde: S })
      .groupBy((user, region) => ({ key: region, value: user }))
      .count()
      .suppress(Suppressed.untilTimeLimit(5 * MINUTE, bufferConfig))
      .toStream()
      .to('region-counts', { valueSerde: L });
    return builder.build();
  }

  it('emits each key at most once per 5 minutes of stream time, its latest count', async () => {
    driver = new TopologyTestDriver(rateLimited(BufferConfig.maxBytes(1_000_000).emitEarlyWhenFull()), {
      defaultKeySerde: S,
      defaultValueSerde: S,
    });
    const users = driver.createInputTopic('user-regions', S, S);
    const out = driver.createOutputTopic('region-counts', S, L);
    const read = () => out.readRecordsToList().map((r) => [r.key, r.value, r.timestamp / MINUTE]);
    await users.pipeInput('alice', 'eu', at(0, 0));
    await users.pipeInput('bob', 'eu', at(0, 1));
    await users.pipeInput('carol', 'us', at(0, 2));
    expect(read()).toEqual([]);
    // eu was first buffered at 0: at 5 minutes its latest count goes out, stamped with its update.
    await users.pipeInput('dave', 'eu', at(0, 5));
    expect(read()).toEqual([['eu', 3, 5]]);
    // alice moves: eu goes back into the buffer (at 6), us keeps its time (2) and its new count.
    await users.pipeInput('alice', 'us', at(0, 6));
    expect(read()).toEqual([]);
    await users.pipeInput('erin', 'us', at(0, 7));
    expect(read()).toEqual([['us', 3, 7]]);
    await users.pipeInput('frank', 'asia', at(0, 11));
    expect(read()).toEqual([['eu', 2, 6]]);
  });

  it('maxRecords with emitEarlyWhenFull emits the oldest entries early, in time then key order', async () => {
    driver = new TopologyTestDriver(rateLimited(BufferConfig.maxRecords(2)), {
      defaultKeySerde: S,
      defaultValueSerde: S,
    });
    const users = driver.createInputTopic('user-regions', S, S);
    const out = driver.createOutputTopic('region-counts', S, L);
    await users.pipeInput('u1', 'b', 0);
    await users.pipeInput('u2', 'a', 0);
    await users.pipeInput('u3', 'c', 1);
    // Three keys, room for two: the oldest (time 0; 'a' before 'b') goes out early.
    expect(out.readKeyValuesToList()).toEqual([{ key: 'a', value: 1 }]);
    await users.pipeInput('u4', 'd', 1);
    expect(out.readKeyValuesToList()).toEqual([{ key: 'b', value: 1 }]);
  });

  it('shutDownWhenFull fails the task with the buffer bound in the error', async () => {
    driver = new TopologyTestDriver(rateLimited(BufferConfig.maxRecords(1).shutDownWhenFull()), {
      defaultKeySerde: S,
      defaultValueSerde: S,
    });
    const users = driver.createInputTopic('user-regions', S, S);
    await users.pipeInput('u1', 'a', 0);
    const error = await users.pipeInput('u2', 'b', 0).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StreamsError);
    expect((error as Error).message).toMatch(
      /KTABLE-SUPPRESS-\d+ buffer exceeded its max capacity\. Currently \[2\/1\] records.*emitEarlyWhenFull/,
    );
  });

  it('forwards deletions (not final results) and the old value of the latest update', async () => {
    const builder = new StreamsBuilder();
    builder
      .table('t', { keySerde: S, valueSerde: S })
      .suppress(Suppressed.untilTimeLimit(10, BufferConfig.unbounded()))
      .toStream()
      .to('out');
    const topology = builder.build();
    driver = new TopologyTestDriver(topology, { defaultKeySerde: S, defaultValueSerde: S });
    const input = driver.createInputTopic('t', S, S);
    const out = driver.createOutputTopic('out', S, S);
    await input.pipeInput('k', 'x', 0);
    await input.pipeInput('k', 'y', 1);
    await input.pipeInput('gone', 'v', 2);
    await input.pipeInput('gone', null, 3);
    await input.pipeInput('other', 'z', 12);
    expect(out.readRecordsToList().map((r) => [r.key, r.value, r.timestamp])).toEqual([
      ['k', 'y', 1],
      ['gone', null, 3],
    ]);
  });
});

describe('EmitStrategy.onWindowClose (KIP-825)', () => {
  function emitOnClose(strategy: EmitStrategy) {
    const builder = new StreamsBuilder();
    builder
      .stream('events', { keySerde: S, valueSerde: S })
      .groupByKey()
      .windowedBy(TimeWindows.ofSizeAndGrace(HOUR, 10 * MINUTE))
      .emitStrategy(strategy)
      .count({ storeName: 'hourly' })
      .toStream()
      .selectKey(name)
      .to('counts', { keySerde: S, valueSerde: L });
    return builder.build();
  }

  it('the hourly example without suppress: one result per window at 10:10, no updates before', async () => {
    driver = new TopologyTestDriver(emitOnClose(EmitStrategy.onWindowClose()), { defaultKeySerde: S });
    const events = driver.createInputTopic('events', S, S);
    const counts = driver.createOutputTopic('counts', S, L);
    for (const m of [0, 20, 40]) await events.pipeInput('U', 'click', at(9, m));
    await events.pipeInput('V', 'click', at(9, 30));
    await events.pipeInput('W', 'click', at(10, 5));
    await events.pipeInput('U', 'click', at(9, 59));
    expect(counts.readRecordsToList()).toEqual([]);
    await events.pipeInput('W', 'click', at(10, 10));
    expect(counts.readRecordsToList().map((r) => [r.key, r.value, r.timestamp])).toEqual([
      ['U@540-600min', 4, at(9, 59)],
      ['V@540-600min', 1, at(9, 30)],
    ]);
    // The window store keeps every update (queries see the running count); only closed windows go out.
    expect(await driver.getWindowStore<string, number>('hourly').fetch('W', at(10, 0))).toBe(2);
    await events.pipeInput('U', 'click', at(9, 30)); // late: dropped, nothing re-emitted
    await events.pipeInput('X', 'click', at(11, 9));
    expect(counts.readRecordsToList()).toEqual([]);
    await events.pipeInput('X', 'click', at(11, 10));
    expect(counts.readKeyValuesToList()).toEqual([{ key: 'W@600-660min', value: 2 }]);
  });

  it('onWindowUpdate, the default, forwards every update', async () => {
    driver = new TopologyTestDriver(emitOnClose(EmitStrategy.onWindowUpdate()), { defaultKeySerde: S });
    const events = driver.createInputTopic('events', S, S);
    const counts = driver.createOutputTopic('counts', S, L);
    await events.pipeInput('U', 'click', at(9, 0));
    await events.pipeInput('U', 'click', at(9, 1));
    expect(counts.readKeyValuesToList()).toEqual([
      { key: 'U@540-600min', value: 1 },
      { key: 'U@540-600min', value: 2 },
    ]);
  });
});

describe('suppression after a rollback (a StreamTask, as the runtime drives it)', () => {
  it('reloads the buffer from the last commit and restarts stream time: nothing is emitted early', async () => {
    let failNext = false;
    const builder = new StreamsBuilder();
    builder
      .table('t', { keySerde: S, valueSerde: S })
      .suppress(Suppressed.untilTimeLimit(10, BufferConfig.unbounded()))
      .toStream()
      .peek(() => {
        if (failNext) {
          failNext = false;
          throw new Error('injected');
        }
      })
      .to('out', { keySerde: S, valueSerde: S });
    let sent: OutputRecord[] = [];
    const task = new StreamTask({
      id: { subtopology: 0, partition: 0 },
      applicationId: 'app',
      topology: builder.build(),
      collector: { send: (r) => sent.push(r) },
      storeFactory: (name) => new InMemoryKeyValueStore(name),
      logger: pino({ level: 'silent' }),
    });
    let offset = 0;
    const process = (key: string, value: string, timestamp: number) =>
      task.process({
        topic: 't',
        partition: 0,
        offset: offset++,
        key: Buffer.from(key),
        value: Buffer.from(value),
        timestamp,
      });
    const keys = () => sent.map((r) => r.key?.toString());
    await task.initializeStores();
    await task.initializeTopology();
    await process('a', '1', 0);
    await process('b', '2', 5);
    task.changelogRecords();
    await task.postCommit([]);
    // At 20 'a' and 'b' are due; the first emission fails and the task rolls back to the commit.
    failNext = true;
    await expect(async () => process('c', '3', 20)).rejects.toThrow(/injected/);
    task.rollback();
    sent = [];
    // The buffer is as committed ('a', 'b') and stream time starts again at this record (12): only
    // 'a' (buffered at 0) is due; 'b' (at 5) would come out with a stream time kept from the
    // rolled-back record (20).
    await process('d', '4', 12);
    expect(keys()).toEqual(['a']);
    await process('e', '5', 30);
    expect(keys()).toEqual(['a', 'b', 'd']);
    await task.close();
  });
});

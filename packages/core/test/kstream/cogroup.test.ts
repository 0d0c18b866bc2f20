// cogroup (KIP-150) through our TopologyTestDriver: one store for all the grouped streams,
// the topology errors, and a join reading the cogrouped table. The outputs are compared with
// Kafka Streams 4.4 in test/differential/scenarios-cogroup.ts.
import { describe, expect, it } from 'vitest';
import { TopologyError } from '../../src/errors.ts';
import { SessionWindows, StreamsBuilder } from '../../src/kstream/index.ts';
import { Serdes } from '../../src/serdes/serdes.ts';
import { TopologyTestDriver } from '../../src/testing/index.ts';

const S = Serdes.String();

function driverFor(builder: StreamsBuilder): TopologyTestDriver {
  return new TopologyTestDriver(builder.build(), {
    applicationId: 'cogroup-test',
    defaultKeySerde: S as never,
    defaultValueSerde: S as never,
  });
}

describe('cogroup', () => {
  it('aggregates several grouped streams into one store, queryable by its name', async () => {
    const b = new StreamsBuilder();
    const clicks = b.stream<string, string>('clicks').groupByKey();
    const views = b.stream<string, string>('views').groupByKey();
    b.stream<string, string>('visits')
      .groupByKey()
      .cogroup<string>((_k, v, agg) => `${agg}v${v}`)
      .cogroup(clicks, (_k, v, agg) => `${agg}c${v}`)
      .cogroup(views, (_k, v, agg) => `${agg}w${v}`)
      .aggregate(() => '>', { storeName: 'activity' })
      .toStream()
      .to('out');
    const topology = b.build();
    expect(topology.describe().toString()).toContain('(stores: [activity])');
    const driver = driverFor(b);
    try {
      await driver.createInputTopic('clicks', S, S).pipeInput('u1', '1', 10);
      await driver.createInputTopic('visits', S, S).pipeInput('u1', '2', 20);
      await driver.createInputTopic('views', S, S).pipeInput('u1', '3', 5);
      const out = driver.createOutputTopic('out', S, S).readRecordsToList();
      expect(out.map((r) => [r.key, r.value, r.timestamp])).toEqual([
        ['u1', '>c1', 10],
        ['u1', '>c1v2', 20],
        ['u1', '>c1v2w3', 20],
      ]);
      expect((await driver.getKeyValueStore<string, string>('activity')).get('u1')).toBe('>c1v2w3');
    } finally {
      await driver.close();
    }
  });

  it('feeds a table join like any aggregation (the value getter reads the store)', async () => {
    const b = new StreamsBuilder();
    const other = b.stream<string, string>('b').groupByKey();
    const table = b
      .stream<string, string>('a')
      .groupByKey()
      .cogroup<string>((_k, v, agg) => agg + v)
      .cogroup(other, (_k, v, agg) => agg + v.toUpperCase())
      .aggregate(() => '');
    b.stream<string, string>('lookups')
      .join(table, (l, t) => `${l}=${t}`)
      .to('joined');
    const driver = driverFor(b);
    try {
      await driver.createInputTopic('a', S, S).pipeInput('k', 'x', 1);
      await driver.createInputTopic('b', S, S).pipeInput('k', 'y', 2);
      await driver.createInputTopic('lookups', S, S).pipeInput('k', 'q', 3);
      expect(driver.createOutputTopic('joined', S, S).readValuesToList()).toEqual(['q=xY']);
    } finally {
      await driver.close();
    }
  });

  it('refuses two re-keyed streams that would share the store-named repartition topic', () => {
    const b = new StreamsBuilder();
    const rekeyed = (topic: string) =>
      b
        .stream<string, string>(topic)
        .selectKey((_k, v) => v)
        .groupByKey();
    const first = rekeyed('one');
    const second = rekeyed('two');
    const cogrouped = first.cogroup<string>((_k, v, a) => a + v).cogroup(second, (_k, v, a) => a + v);
    expect(() => cogrouped.aggregate(() => '', { storeName: 'both' })).toThrow(TopologyError);
    expect(() => cogrouped.aggregate(() => '', { storeName: 'both' })).toThrow(/groupByKey\(\{ name \}\)/);
  });

  it('names each re-keyed stream its own repartition topic with Grouped', () => {
    const b = new StreamsBuilder();
    const rekeyed = (topic: string) =>
      b
        .stream<string, string>(topic)
        .selectKey((_k, v) => v)
        .groupByKey({ name: `${topic}-by-value` });
    rekeyed('one')
      .cogroup<string>((_k, v, a) => a + v)
      .cogroup(rekeyed('two'), (_k, v, a) => a + v)
      .aggregate(() => '');
    const text = b.build().describe().toString();
    expect(text).toContain('(topics: [one-by-value-repartition])');
    expect(text).toContain('(topics: [two-by-value-repartition])');
  });

  it('asks for an initializer, an aggregator and a session merger', () => {
    const b = new StreamsBuilder();
    const grouped = b.stream<string, string>('in').groupByKey();
    expect(() => grouped.cogroup(undefined as never)).toThrow(/needs an aggregator/);
    const cogrouped = grouped.cogroup<string>((_k, v, a) => a + v);
    expect(() => cogrouped.aggregate(undefined as never)).toThrow(/needs an initializer/);
    const sessions = cogrouped.windowedBy(SessionWindows.ofInactivityGapWithNoGrace(10));
    expect(() => sessions.aggregate(() => '', undefined as never)).toThrow(/needs a merger/);
    expect(() => cogrouped.windowedBy({} as never)).toThrow(/TimeWindows, SlidingWindows or SessionWindows/);
  });
});

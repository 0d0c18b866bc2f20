import { afterEach, describe, expect, it } from 'vitest';
import { StreamsBuilder } from '../../src/kstream/index.ts';
import { Serdes } from '../../src/serdes/serdes.ts';
import { TopologyTestDriver } from '../../src/testing/index.ts';

const S = Serdes.String();
const I = Serdes.Int32();
const L = Serdes.Long();
let driver: TopologyTestDriver | undefined;

afterEach(async () => {
  await driver?.close();
  driver = undefined;
});

describe('KGroupedStream', () => {
  it('groupByKey().count() counts per key without a repartition', async () => {
    const builder = new StreamsBuilder();
    builder
      .stream('in', { keySerde: S, valueSerde: S })
      .groupByKey()
      .count()
      .toStream()
      .to('out', { valueSerde: L });
    const topology = builder.build();
    expect(topology.subtopologies('a')).toHaveLength(1);
    driver = new TopologyTestDriver(topology);
    const input = driver.createInputTopic('in', S, S);
    for (const key of ['x', 'y', 'x', 'x']) await input.pipeInput(key, 'v');
    // A null key cannot be grouped: skipped.
    await input.pipeInput(null, 'v');
    expect(driver.createOutputTopic('out', S, L).readKeyValuesToList()).toEqual([
      { key: 'x', value: 1 },
      { key: 'y', value: 1 },
      { key: 'x', value: 2 },
      { key: 'x', value: 3 },
    ]);
  });

  it('reduce() combines values per key, starting from the first value', async () => {
    const builder = new StreamsBuilder();
    builder
      .stream('in', { keySerde: S, valueSerde: I })
      .groupByKey()
      .reduce((sum, v) => sum + v, { storeName: 'sums' })
      .toStream()
      .to('out');
    driver = new TopologyTestDriver(builder.build());
    const input = driver.createInputTopic('in', S, I);
    for (const [k, v] of [
      ['a', 5],
      ['b', 1],
      ['a', 7],
    ] as const) {
      await input.pipeInput(k, v);
    }
    expect(driver.createOutputTopic('out', S, I).readKeyValuesToList()).toEqual([
      { key: 'a', value: 5 },
      { key: 'b', value: 1 },
      { key: 'a', value: 12 },
    ]);
    expect(driver.getKeyValueStore<string, number>('sums').get('a')).toBe(12);
  });

  it('groupBy(...).aggregate() re-keys through a repartition topic and aggregates into a typed value', async () => {
    interface Order {
      customer: string;
      amount: number;
    }
    interface Stats {
      orders: number;
      total: number;
    }
    const builder = new StreamsBuilder();
    builder
      .stream('orders', { keySerde: S, valueSerde: Serdes.Json<Order>() })
      .groupBy((_id, order) => order.customer, { name: 'by-customer', keySerde: S })
      .aggregate<Stats>(
        () => ({ orders: 0, total: 0 }),
        (_customer, order, stats) => ({ orders: stats.orders + 1, total: stats.total + order.amount }),
        { storeName: 'customer-stats', valueSerde: Serdes.Json<Stats>() },
      )
      .toStream()
      .to('stats');
    const topology = builder.build();
    expect(topology.subtopologies('shop').map((s) => s.sourceTopics)).toEqual([
      ['orders'],
      ['shop-by-customer-repartition'],
    ]);
    driver = new TopologyTestDriver(topology, { applicationId: 'shop' });
    const orders = driver.createInputTopic('orders', S, Serdes.Json<Order>());
    await orders.pipeInput('o1', { customer: 'ann', amount: 10 });
    await orders.pipeInput('o2', { customer: 'bob', amount: 5 });
    await orders.pipeInput('o3', { customer: 'ann', amount: 7 });
    expect(driver.createOutputTopic('stats', S, Serdes.Json<Stats>()).readKeyValuesToMap()).toEqual(
      new Map([
        ['ann', { orders: 2, total: 17 }],
        ['bob', { orders: 1, total: 5 }],
      ]),
    );
  });

  it('uses the config default serdes when the DSL was given none', async () => {
    const builder = new StreamsBuilder();
    builder
      .stream<string, string>('in')
      .groupBy((_k, v) => v)
      .count({ storeName: 'c' })
      .toStream()
      .to('out', { valueSerde: L });
    driver = new TopologyTestDriver(builder.build(), { defaultKeySerde: S, defaultValueSerde: S });
    const input = driver.createInputTopic('in', S, S);
    await input.pipeInput('1', 'red');
    await input.pipeInput('2', 'red');
    expect(driver.createOutputTopic('out', S, L).readKeyValuesToList()).toEqual([
      { key: 'red', value: 1 },
      { key: 'red', value: 2 },
    ]);
  });
});

describe('KTable', () => {
  it('table() keeps the latest value per key and deletes on null', async () => {
    const builder = new StreamsBuilder();
    builder
      .table('prices', { keySerde: S, valueSerde: I }, { storeName: 'prices-store' })
      .toStream()
      .to('out');
    driver = new TopologyTestDriver(builder.build());
    const prices = driver.createInputTopic('prices', S, I);
    await prices.pipeInput('apple', 3);
    await prices.pipeInput('apple', 4);
    await prices.pipeInput('pear', 2);
    await prices.pipeInput('pear', null);
    const store = driver.getKeyValueStore<string, number>('prices-store');
    expect(store.get('apple')).toBe(4);
    expect(store.get('pear')).toBeUndefined();
    expect(driver.createOutputTopic('out', S, I).readKeyValuesToList()).toEqual([
      { key: 'apple', value: 3 },
      { key: 'apple', value: 4 },
      { key: 'pear', value: 2 },
      { key: 'pear', value: null },
    ]);
  });

  it('filter() turns rows that do not match into deletions; mapValues() maps new and old', async () => {
    const builder = new StreamsBuilder();
    builder
      .table('t', { keySerde: S, valueSerde: I })
      .filter((_k, v) => v >= 10)
      .mapValues((v) => `${v}€`)
      .toStream()
      .to('out', { valueSerde: S });
    driver = new TopologyTestDriver(builder.build());
    const t = driver.createInputTopic('t', S, I);
    await t.pipeInput('a', 5); // never matched: a tombstone all the same, as from Kafka Streams
    await t.pipeInput('a', 15);
    await t.pipeInput('a', 20);
    await t.pipeInput('a', 1); // stops matching: tombstone
    expect(driver.createOutputTopic('out', S, S).readKeyValuesToList()).toEqual([
      { key: 'a', value: null },
      { key: 'a', value: '15€' },
      { key: 'a', value: '20€' },
      { key: 'a', value: null },
    ]);
  });

  it('toTable() materializes a stream; after a key change it repartitions first', async () => {
    const builder = new StreamsBuilder();
    builder
      .stream('in', { keySerde: S, valueSerde: I })
      .selectKey((k) => k.toUpperCase())
      .toTable({ storeName: 'latest', keySerde: S, valueSerde: I })
      .toStream()
      .to('out');
    const topology = builder.build();
    expect(topology.subtopologies('x').map((s) => s.repartitionSourceTopics)).toEqual([
      [],
      ['x-latest-repartition'],
    ]);
    driver = new TopologyTestDriver(topology, { applicationId: 'x' });
    const input = driver.createInputTopic('in', S, I);
    await input.pipeInput('a', 1);
    await input.pipeInput('A', 2);
    expect(driver.getKeyValueStore<string, number>('latest').get('A')).toBe(2);
    expect(driver.createOutputTopic('out', S, I).readValuesToList()).toEqual([1, 2]);
  });

  it('groupBy().count() with a subtractor: an update moves the row from its old group to the new one', async () => {
    const builder = new StreamsBuilder();
    // user -> region; count users per region.
    builder
      .table('user-regions', { keySerde: S, valueSerde: S })
      .groupBy((user, region) => ({ key: region, value: user }), { keySerde: S, valueSerde: S })
      .count({ storeName: 'users-per-region' })
      .toStream()
      .to('region-counts', { keySerde: S, valueSerde: L });
    const topology = builder.build();
    expect(topology.subtopologies('geo')[1]?.sourceTopics).toEqual(['geo-users-per-region-repartition']);
    driver = new TopologyTestDriver(topology, { applicationId: 'geo' });
    const regions = driver.createInputTopic('user-regions', S, S);
    const counts = driver.createOutputTopic('region-counts', S, L);
    await regions.pipeInput('alice', 'eu');
    await regions.pipeInput('bob', 'eu');
    await regions.pipeInput('alice', 'us');
    expect(counts.readKeyValuesToList()).toEqual([
      { key: 'eu', value: 1 },
      { key: 'eu', value: 2 },
      { key: 'eu', value: 1 }, // alice's old contribution removed first
      { key: 'us', value: 1 },
    ]);
    await regions.pipeInput('bob', 'eu'); // same group: one update, net zero
    expect(counts.readKeyValuesToList()).toEqual([{ key: 'eu', value: 1 }]);
    await regions.pipeInput('bob', null); // deleted row
    expect(counts.readKeyValuesToList()).toEqual([{ key: 'eu', value: 0 }]);
    const store = driver.getKeyValueStore<string, number>('users-per-region');
    expect([store.get('eu'), store.get('us')]).toEqual([0, 1]);
  });

  it('groupBy().aggregate() and reduce() with adder and subtractor keep sums right across updates', async () => {
    const builder = new StreamsBuilder();
    const byCategory = builder
      .table('items', { keySerde: S, valueSerde: Serdes.Json<{ category: string; price: number }>() })
      .groupBy((_item, v) => ({ key: v.category, value: v.price }), { keySerde: S, valueSerde: I });
    byCategory
      .aggregate(
        () => 0,
        (_c, price, total) => total + price,
        (_c, price, total) => total - price,
        { storeName: 'agg-total', valueSerde: I },
      )
      .toStream()
      .to('agg-out');
    byCategory
      .reduce(
        (a, b) => a + b,
        (a, b) => a - b,
        { storeName: 'reduce-total', valueSerde: I },
      )
      .toStream()
      .to('reduce-out');
    driver = new TopologyTestDriver(builder.build());
    const items = driver.createInputTopic('items', S, Serdes.Json<{ category: string; price: number }>());
    await items.pipeInput('pen', { category: 'office', price: 2 });
    await items.pipeInput('desk', { category: 'office', price: 100 });
    await items.pipeInput('pen', { category: 'office', price: 3 });
    await items.pipeInput('desk', { category: 'furniture', price: 90 });
    for (const topic of ['agg-out', 'reduce-out']) {
      expect(driver.createOutputTopic(topic, S, I).readKeyValuesToMap()).toEqual(
        new Map([
          ['office', 3],
          ['furniture', 90],
        ]),
      );
    }
    expect(driver.getKeyValueStore<string, number>('agg-total').get('office')).toBe(3);
    expect(driver.getKeyValueStore<string, number>('reduce-total').get('furniture')).toBe(90);
  });
});

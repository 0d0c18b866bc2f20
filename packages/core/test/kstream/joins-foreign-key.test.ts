// Foreign-key table joins (KIP-213) through the test driver: each input record and each result
// with its timestamp, for the cases of Kafka Streams 4.4's subscription instructions (first
// subscription, foreign-key change, right-side update and delete, left tombstone, no foreign key),
// a stale response dropped by its hash, and the names and co-partitioning of the internal topics.
// The differential harness (test/differential/scenarios-joins-fk.ts) compares the same, and the
// internal topics' bytes, with Kafka Streams itself.
import { afterEach, describe, expect, it } from 'vitest';
import { TopologyError } from '../../src/errors.ts';
import { StreamsBuilder } from '../../src/kstream/index.ts';
import { subscriptionResponseWrapperSerde } from '../../src/kstream/internals/fk-wire-format.ts';
import { murmur3Hash128 } from '../../src/kstream/internals/murmur3.ts';
import { enforceCopartitioning } from '../../src/processor/internals/copartition.ts';
import { Serdes } from '../../src/serdes/serdes.ts';
import { TopologyTestDriver } from '../../src/testing/index.ts';

const S = Serdes.String();
let driver: TopologyTestDriver | undefined;

afterEach(async () => {
  await driver?.close();
  driver = undefined;
});

/** Order values are `<product>:<quantity>`; `none...` names no product. */
const productOf = (order: string): string | null => (order.startsWith('none') ? null : order.split(':')[0]!);
const joiner = (order: string, product: string | null) => `${order}|${product}`;

type Step = [topic: 'orders' | 'products', key: string, value: string | null, timestamp: number];

const STEPS: Step[] = [
  ['orders', 'o1', 'p1:1', 1], // no product p1 yet
  ['products', 'p1', 'apple', 2], // o1 joins
  ['orders', 'o2', 'p1:2', 3], // joins at once
  ['products', 'p1', 'green apple', 4], // updates o1 and o2
  ['orders', 'o1', 'p2:1', 5], // foreign key changes to an absent product
  ['products', 'p2', 'pear', 6], // which arrives
  ['orders', 'o1', 'p2:7', 2], // out of order, same foreign key
  ['products', 'p1', null, 8], // product deleted: o2 loses its match
  ['orders', 'o2', null, 9], // left tombstone
  ['orders', 'o3', null, 10], // tombstone of an absent order: nothing
  ['orders', 'o3', 'none:1', 11], // no foreign key
  ['orders', 'o3', 'p2:3', 12], // gets one
  ['orders', 'o3', 'none:2', 13], // loses it
  ['products', 'p2', null, 14], // o1 loses its match
  ['products', 'p9', null, 15], // nobody subscribed
  ['orders', 'o1', null, 16],
];

async function run(leftJoin: boolean): Promise<Array<[string, string | null, number]>> {
  const b = new StreamsBuilder();
  const orders = b.table<string, string>('orders');
  const products = b.table<string, string>('products');
  const joined = leftJoin
    ? orders.leftJoin(products, productOf, joiner)
    : orders.join(products, productOf, joiner);
  joined.toStream().to('out');
  driver = new TopologyTestDriver(b.build(), { defaultKeySerde: S, defaultValueSerde: S });
  const inputs = {
    orders: driver.createInputTopic('orders', S, S),
    products: driver.createInputTopic('products', S, S),
  };
  for (const [topic, key, value, timestamp] of STEPS) await inputs[topic].pipeInput(key, value, timestamp);
  return driver
    .createOutputTopic('out', S, S)
    .readRecordsToList()
    .map((r) => [r.key!, r.value, r.timestamp]);
}

describe('KTable-KTable foreign-key join', () => {
  it('inner join: results only with a match; changes, deletes and foreign-key changes retract them', async () => {
    expect(await run(false)).toEqual([
      ['o1', 'p1:1|apple', 2], // the product's arrival answers the waiting subscription
      ['o2', 'p1:2|apple', 3], // the later of the order's and the product's timestamps
      ['o1', 'p1:1|green apple', 4], // every subscriber of p1, by the product's timestamp
      ['o2', 'p1:2|green apple', 4],
      ['o1', null, 5], // new foreign key without a product: the old result is retracted
      ['o1', 'p2:1|pear', 6],
      ['o1', 'p2:7|pear', 6], // an out-of-order order: still the later timestamp
      ['o2', null, 8], // its product was deleted
      ['o2', null, 9], // its order was deleted (Kafka Streams cannot know it had no result)
      ['o3', 'p2:3|pear', 12], // first foreign key after none
      ['o3', null, 13], // foreign key gone
      ['o1', null, 14], // product p2 deleted
      ['o1', null, 16], // order deleted
    ]);
    // The two orders without a foreign key are dropped, as Kafka Streams counts them.
    expect(driver!.droppedRecordsTotal).toBe(2);
  });

  it('left join: a result for every order, with null while the product is missing', async () => {
    expect(await run(true)).toEqual([
      ['o1', 'p1:1|null', 1],
      ['o1', 'p1:1|apple', 2],
      ['o2', 'p1:2|apple', 3],
      ['o1', 'p1:1|green apple', 4],
      ['o2', 'p1:2|green apple', 4],
      ['o1', 'p2:1|null', 5],
      ['o1', 'p2:1|pear', 6],
      ['o1', 'p2:7|pear', 6],
      ['o2', 'p1:2|null', 8], // product deleted: the order stays, without it
      ['o2', null, 9], // order deleted: tombstone
      ['o3', 'none:1|null', 11], // no foreign key: joined with nothing
      ['o3', 'p2:3|pear', 12],
      ['o3', 'none:2|null', 13],
      ['o1', 'p2:7|null', 14],
      ['o1', null, 16],
    ]);
  });

  it('(key, value) extractor and a materialized, named result readable as a store', async () => {
    const b = new StreamsBuilder();
    const orders = b.table<string, string>('orders');
    const products = b.table<string, string>('products');
    orders
      .join(products, (key: string, order: string) => (key === 'skip' ? null : productOf(order)), joiner, {
        name: 'enrich',
        storeName: 'enriched',
      })
      .toStream()
      .to('out');
    const topology = b.build();
    const topics = topology.subtopologies('app').flatMap((s) => s.repartitionSourceTopics);
    expect(topics.sort()).toEqual([
      'app-enrich-subscription-registration-topic',
      'app-enrich-subscription-response-topic',
    ]);
    driver = new TopologyTestDriver(topology, { defaultKeySerde: S, defaultValueSerde: S });
    await driver.createInputTopic('products', S, S).pipeInput('p1', 'apple', 1);
    const input = driver.createInputTopic('orders', S, S);
    await input.pipeInput('o1', 'p1:1', 2);
    await input.pipeInput('skip', 'p1:1', 3);
    expect(driver.createOutputTopic('out', S, S).readKeyValuesToMap()).toEqual(
      new Map([['o1', 'p1:1|apple']]),
    );
    expect(await driver.getKeyValueStore<string, string>('enriched')!.get('o1')).toBe('p1:1|apple');
  });

  it('drops a response whose hash is not that of the current left value (a stale response)', async () => {
    const b = new StreamsBuilder();
    b.table<string, string>('orders')
      .join(b.table<string, string>('products'), productOf, joiner)
      .toStream()
      .to('out');
    driver = new TopologyTestDriver(b.build(), { defaultKeySerde: S, defaultValueSerde: S });
    await driver.createInputTopic('products', S, S).pipeInput('p1', 'apple', 1);
    const orders = driver.createInputTopic('orders', S, S);
    await orders.pipeInput('o1', 'p1:1', 2);
    await orders.pipeInput('o1', 'p1:2', 3);
    const out = driver.createOutputTopic('out', S, S);
    expect(out.readValuesToList()).toEqual(['p1:1|apple', 'p1:2|apple']);
    // Responses as the right side would send them, for the old and the current order value.
    const responses = driver.createInputTopic(
      'test-app-KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-0000000014-topic',
      S,
      subscriptionResponseWrapperSerde,
    );
    const response = (order: string, product: string) => ({
      version: 0,
      hash: murmur3Hash128(Buffer.from(order)),
      foreignValue: Buffer.from(product),
    });
    const dropped = driver.droppedRecordsTotal;
    await responses.pipeInput('o1', response('p1:1', 'banana'), 4);
    expect(out.readValuesToList()).toEqual([]);
    expect(driver.droppedRecordsTotal).toBe(dropped + 1);
    await responses.pipeInput('o1', response('p1:2', 'banana'), 5);
    expect(out.readRecordsToList().map((r) => [r.value, r.timestamp])).toEqual([['p1:2|banana', 5]]);
  });

  it('names its nodes, store and topics as Kafka Streams and co-partitions each topic with its table', () => {
    const b = new StreamsBuilder();
    b.table<string, string>('orders').leftJoin(b.table<string, string>('products'), productOf, joiner);
    const builder = b.build().internalBuilder;
    const [left, right] = builder.subtopologies('app');
    expect(left!.sourceTopics).toEqual([
      'orders',
      'app-KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-0000000014-topic',
    ]);
    expect(left!.sinkTopics).toEqual(['app-KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-0000000006-topic']);
    expect(right!.stores.map((s) => s.changelogTopic)).toContain(
      'app-KTABLE-FK-JOIN-SUBSCRIPTION-STATE-STORE-0000000010-changelog',
    );
    for (const name of [
      'KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-0000000007',
      'KTABLE-FK-JOIN-SUBSCRIPTION-PROCESSOR-0000000011',
      'KTABLE-FK-JOIN-SUBSCRIPTION-PROCESSOR-0000000012',
      'KTABLE-FK-JOIN-SUBSCRIPTION-PROCESSOR-0000000013',
      'KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-RESOLVER-PROCESSOR-0000000017',
      'KTABLE-FK-JOIN-OUTPUT-0000000018',
    ]) {
      expect(builder.hasNode(name), name).toBe(true);
    }
    // Orders in 2 partitions, products in 3: subscriptions go to 3, responses come back to 2.
    const counts = new Map([
      ['orders', 2],
      ['products', 3],
    ]);
    enforceCopartitioning(builder.copartitionGroups('app'), counts, (t) => t.startsWith('app-'));
    expect(counts.get('app-KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-0000000006-topic')).toBe(3);
    expect(counts.get('app-KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-0000000014-topic')).toBe(2);
  });

  it('says what to pass when the extractor or the joiner is not a function', () => {
    const b = new StreamsBuilder();
    const orders = b.table<string, string>('orders');
    const products = b.table<string, string>('products');
    expect(() => orders.join(products, 'productId' as never, joiner as never, {})).toThrow(TopologyError);
    expect(() => orders.join(products, productOf, 'x' as never, {})).toThrow(/joiner function/);
  });
});

// The foreign-key join on the real broker under exactly_once (issue 13): orders (3 partitions,
// written to partitions other than their key's) joined by product id to products (2 partitions).
// Subscriptions go to the products' partitions, each response back to the partition of the order
// that asked, whichever that is; product updates and deletes, foreign-key changes and order
// deletes while running. The output, read read_committed, ends as the join of the final tables.
import { beforeAll, describe, expect, it } from 'vitest';
import { topicsForThisFile } from '../../../../scripts/test/kafka.ts';
import { KafkaStreams, Serdes, StreamsBuilder } from '../../src/index.ts';
import {
  produce,
  type ReadRecord,
  readTopic,
  stopAfterEach,
  tempStateDir,
  testBrokers,
  testKafka,
  uniqueName,
} from './kafka-helpers.ts';

const topics = topicsForThisFile();
const apps = stopAfterEach((app: KafkaStreams) => app.close({ timeoutMs: 30_000 }));
const S = Serdes.String();

let ordersTopic: string;
let productsTopic: string;
let outputTopic: string;

beforeAll(async () => {
  [ordersTopic, productsTopic, outputTopic] = await Promise.all([
    topics.create('fk-orders', 3),
    topics.create('fk-products', 2),
    topics.create('fk-out', 3),
  ]);
}, 60_000);

type Rows = Map<string, string>;

/** The join of the final tables: order `<product>:<qty>` with its product's row. */
function expectedJoin(orders: Rows, products: Rows): Rows {
  const joined = new Map<string, string>();
  for (const [order, value] of orders) {
    const product = products.get(value.split(':')[0]!);
    if (product !== undefined) joined.set(order, `${value}=${product}`);
  }
  return joined;
}

/** The latest result per order; an empty value is a tombstone. */
function latest(records: ReadRecord[]): Rows {
  const view = new Map<string, string>();
  for (const r of records) {
    if (r.value.length === 0) view.delete(r.key);
    else view.set(r.key, r.value.toString());
  }
  return view;
}

describe('KTable foreign-key join, exactly_once', () => {
  it('ends with the join of the final tables, across partitions', async () => {
    const applicationId = uniqueName('fk-join-app');
    topics.cleanUpPrefix(applicationId);
    const b = new StreamsBuilder();
    const products = b.table<string, string>(productsTopic);
    b.table<string, string>(ordersTopic)
      .join(
        products,
        (order) => order.split(':')[0]!,
        (order, product) => `${order}=${product}`,
      )
      .toStream()
      .to(outputTopic);
    const streams = new KafkaStreams(b.build(), {
      applicationId,
      brokers: testBrokers(),
      defaultKeySerde: S,
      defaultValueSerde: S,
      processingGuarantee: 'exactly_once',
      commitIntervalMs: 100,
      stateDir: tempStateDir(),
      logger: 'warn',
    });
    apps.push(streams);

    const orderRows: Rows = new Map();
    const productRows: Rows = new Map();
    const sendProducts = (rows: Array<[string, string | null]>) => {
      for (const [k, v] of rows) v === null ? productRows.delete(k) : productRows.set(k, v);
      return produce(
        productsTopic,
        rows.map(([key, value]) => ({ key, value })),
      );
    };
    // Round-robin partitions: most orders sit on a partition that murmur2 of their key would not
    // pick, so only the subscription's primary partition brings their responses home.
    let next = 0;
    const sendOrders = (rows: Array<[string, string | null]>) => {
      for (const [k, v] of rows) v === null ? orderRows.delete(k) : orderRows.set(k, v);
      return produce(
        ordersTopic,
        rows.map(([key, value]) => ({ key, value, partition: orderPartition(key) })),
      );
    };
    const partitions = new Map<string, number>();
    const orderPartition = (key: string): number => {
      if (!partitions.has(key)) partitions.set(key, next++ % 3);
      return partitions.get(key)!;
    };

    await sendProducts(Array.from({ length: 10 }, (_, i) => [`p${i}`, `product${i}`]));
    await sendOrders(Array.from({ length: 60 }, (_, i) => [`o${i}`, `p${i % 12}:${i}`]));
    await streams.start();
    const first = expectedJoin(orderRows, productRows);
    await readTopic(outputTopic, (r) => equal(latest(r), first), { timeoutMs: 15_000 });
    // Then, on joined rows: price changes, a deleted product, a late product, foreign-key changes
    // (to a deleted, a missing, a late and another product), a deleted order.
    await sendProducts([
      ['p1', 'product1-v2'],
      ['p2', null],
      ['p10', 'product10'],
    ]);
    await sendOrders([
      ['o3', 'p2:3'],
      ['o4', 'p11:4'],
      ['o5', 'p10:5'],
      ['o6', null],
      ['o7', 'p1:77'],
    ]);
    const expected = expectedJoin(orderRows, productRows);
    expect(expected.size).toBeGreaterThan(40);
    const records = await readTopic(outputTopic, (r) => equal(latest(r), expected), { timeoutMs: 25_000 });
    expect(latest(records)).toEqual(expected);
    // The retractions came as tombstones: the orders of the deleted product p2, o3 (moved to p2),
    // o4 (moved to the missing p11), o6 (deleted). o5 (moved to p10) may see one too, if its
    // subscription reached p10's partition before p10 did; then its result follows.
    const retracted = ['o14', 'o2', 'o26', 'o3', 'o38', 'o4', 'o50', 'o6'];
    const tombstones = [...new Set(records.filter((r) => r.value.length === 0).map((r) => r.key))];
    expect(tombstones.filter((k) => k !== 'o5').sort()).toEqual(retracted);

    // The internal topics: subscriptions with the products, responses with the orders.
    const admin = testKafka().admin();
    await admin.connect();
    const registration = `${applicationId}-KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-0000000006-topic`;
    const response = `${applicationId}-KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-0000000014-topic`;
    const { topics: meta } = await admin.fetchTopicMetadata({ topics: [registration, response] });
    await admin.disconnect();
    const widths = new Map(meta.map((t) => [t.name, t.partitions.length]));
    expect(widths).toEqual(
      new Map([
        [registration, 2],
        [response, 3],
      ]),
    );
  }, 60_000);
});

function equal(a: Rows, b: Rows): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) if (b.get(k) !== v) return false;
  return true;
}

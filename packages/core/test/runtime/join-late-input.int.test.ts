// Issue 34 on the real broker: a stream-table left join whose table partitions are fetched seconds
// after the stream's. The fault proxy leaves the table topic out of every Fetch request for a
// while, so the late table is what happens every run, not what a busy machine does now and then.
// Every customer record is older than every order, so Kafka Streams (which waits for a partition
// whose records are on the broker, however long) enriches each order with its customer's latest
// version, and gives null only for ids the table never had.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FaultProxy } from '../../../../scripts/test/fault-proxy.ts';
import { topicsForThisFile } from '../../../../scripts/test/kafka.ts';
import { KafkaStreams, type ProcessingGuarantee, Serdes, StreamsBuilder } from '../../src/index.ts';
import {
  produce,
  readTopic,
  stopAfterEach,
  tempStateDir,
  testBrokers,
  testKafka,
  uniqueName,
  waitFor,
} from './kafka-helpers.ts';

const topics = topicsForThisFile();
const apps = stopAfterEach((app: KafkaStreams) => app.close({ timeoutMs: 30_000 }));
const S = Serdes.String();
const proxy = new FaultProxy(0);

const CUSTOMERS = 4_000;
const ORDERS = 2_000;
/** How long after the app is RUNNING the table's partitions are first fetched. */
const TABLE_LATE_MS = 3_000;

/** A small deterministic generator (mulberry32), so that a seed names one data set. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface DataSet {
  customers: string;
  orders: string;
  /** Per order id, what the join must give: the customer's latest version, or NULL. */
  expected: Map<string, string>;
}

/** Customers (10% updated once) before any order; 3% of the orders name unknown customers. */
async function dataSet(seed: number): Promise<DataSet> {
  const next = random(seed);
  const [customers, orders] = await Promise.all([
    topics.create(`late-customers-${seed}`, 4),
    topics.create(`late-orders-${seed}`, 4),
  ]);
  const base = Date.now() - 60 * 60_000;
  const latest = new Map<string, string>();
  const records: Array<{ key: string; value: string; timestamp: number }> = [];
  for (let i = 0; i < CUSTOMERS; i++) records.push({ key: `c${i}`, value: `c${i}v1`, timestamp: base + i });
  for (let i = 0; i < CUSTOMERS; i++) {
    latest.set(`c${i}`, `c${i}v1`);
    if (next() < 0.1) {
      records.push({ key: `c${i}`, value: `c${i}v2`, timestamp: base + CUSTOMERS + i });
      latest.set(`c${i}`, `c${i}v2`);
    }
  }
  await produce(customers, records);
  const expected = new Map<string, string>();
  const orderRecords = Array.from({ length: ORDERS }, (_, i) => {
    const unknown = next() < 0.03;
    const customer = unknown ? `u${i}` : `c${Math.floor(next() * CUSTOMERS)}`;
    expected.set(`o${i}`, latest.get(customer) ?? 'NULL');
    return { key: customer, value: `o${i}`, timestamp: base + 10 * CUSTOMERS + i };
  });
  await produce(orders, orderRecords);
  return { customers, orders, expected };
}

const seeds = [34, 3_401];
const data = new Map<number, DataSet>();

beforeAll(async () => {
  await proxy.start();
  for (const seed of seeds) data.set(seed, await dataSet(seed));
}, 120_000);

afterAll(async () => {
  await proxy.close();
});

describe('a stream-table join whose table partitions are fetched late', () => {
  const cases = seeds.flatMap((seed) =>
    (['at_least_once', 'exactly_once'] as ProcessingGuarantee[]).map((guarantee) => ({ seed, guarantee })),
  );
  it.each(cases)(
    'enriches every order with the latest customer (seed $seed, $guarantee)',
    async ({ seed, guarantee }) => {
      const { customers, orders, expected } = data.get(seed)!;
      const output = await topics.create(`late-enriched-${seed}-${guarantee}`, 4);
      const applicationId = uniqueName(`late-join-${seed}`);
      topics.cleanUpPrefix(applicationId);
      const builder = new StreamsBuilder();
      const table = builder.table<string, string>(customers, { keySerde: S, valueSerde: S });
      builder
        .stream<string, string>(orders, { keySerde: S, valueSerde: S })
        .leftJoin(table, (order, customer) => `${order}=${customer ?? 'NULL'}`)
        .to(output, { keySerde: S, valueSerde: S });
      const app = new KafkaStreams(builder.build(), {
        applicationId,
        brokers: testBrokers(),
        socketFactory: proxy.socketFactory(),
        processingGuarantee: guarantee,
        commitIntervalMs: 200,
        stateDir: tempStateDir(),
        logger: 'warn',
      });
      apps.push(app);
      const withheldBefore = proxy.withheldFetchRequests;
      proxy.withholdFetches([customers], 120_000);
      try {
        await app.start();
        await waitFor(() => app.state === 'RUNNING', 60_000, 'RUNNING');
        await new Promise((r) => setTimeout(r, TABLE_LATE_MS));
      } finally {
        proxy.withholdFetches([], 0);
      }
      expect(proxy.withheldFetchRequests - withheldBefore, 'the table was fetched late').toBeGreaterThan(0);
      const records = await readTopic(output, (rs) => rs.length >= ORDERS, {
        timeoutMs: 60_000,
        settleMs: 500,
      });
      const got = new Map(records.map((r) => r.value.toString().split('=') as [string, string]));
      const wrong = [...expected].filter(([order, value]) => got.get(order) !== value);
      expect(records.length).toBe(ORDERS);
      expect(
        wrong.length,
        `wrong: ${JSON.stringify(wrong.slice(0, 5))} got ${wrong.slice(0, 5).map(([o]) => got.get(o))}`,
      ).toBe(0);
    },
    90_000,
  );
});

describe('a stream-table join whose table has an open transaction', () => {
  it('under read_committed the lag ends at the last stable offset: the open transaction is not waited for', async () => {
    const [customers, orders, output] = await Promise.all([
      topics.create('open-txn-customers', 1),
      topics.create('open-txn-orders', 1),
      topics.create('open-txn-enriched', 1),
    ]);
    const base = Date.now() - 60 * 60_000;
    await produce(
      customers,
      Array.from({ length: 10 }, (_, i) => ({ key: `c${i}`, value: `c${i}v1`, timestamp: base + i })),
    );
    // A second version of every customer in a transaction left open: records on the broker (the
    // high watermark counts them) that a read_committed consumer cannot read.
    const producer = testKafka().producer({
      transactionalId: uniqueName('open-txn'),
      idempotent: true,
      maxInFlightRequests: 1,
    });
    await producer.connect();
    const txn = await producer.transaction();
    try {
      await txn.send({
        topic: customers,
        messages: Array.from({ length: 10 }, (_, i) => ({
          key: `c${i}`,
          value: `c${i}v2`,
          timestamp: String(base + 100 + i),
        })),
      });
      await produce(
        orders,
        Array.from({ length: 10 }, (_, i) => ({ key: `c${i}`, value: `o${i}`, timestamp: base + 1_000 + i })),
      );
      const applicationId = uniqueName('open-txn-join');
      topics.cleanUpPrefix(applicationId);
      const builder = new StreamsBuilder();
      const table = builder.table<string, string>(customers, { keySerde: S, valueSerde: S });
      builder
        .stream<string, string>(orders, { keySerde: S, valueSerde: S })
        .leftJoin(table, (order, customer) => `${order}=${customer ?? 'NULL'}`)
        .to(output, { keySerde: S, valueSerde: S });
      const app = new KafkaStreams(builder.build(), {
        applicationId,
        brokers: testBrokers(),
        processingGuarantee: 'exactly_once',
        commitIntervalMs: 200,
        stateDir: tempStateDir(),
        logger: 'warn',
      });
      apps.push(app);
      await app.start();
      // Well inside the transaction's timeout: with the high watermark as the end, the task would
      // wait for the 10 unreadable records until the transaction ended.
      const records = await readTopic(output, (rs) => rs.length >= 10, { timeoutMs: 20_000 });
      expect(records.map((r) => r.value.toString()).sort()).toEqual(
        Array.from({ length: 10 }, (_, i) => `o${i}=c${i}v1`).sort(),
      );
      expect(app.metrics().enforcedProcessing).toBeGreaterThan(0);
    } finally {
      await txn.abort();
      await producer.disconnect();
    }
  }, 90_000);
});

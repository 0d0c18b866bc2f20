// Stream-table joins on the real broker (issue 13): a global table larger than one fetch batch is
// loaded whole before the first join result; a re-keyed stream is repartitioned to its table's
// partition count; two source topics with different partition counts fail the start with an error
// naming both. One set of topics for the file.
import { join } from 'node:path';
import { readCheckpoint } from '@kstreams/state-store';
import { beforeAll, describe, expect, it } from 'vitest';
import { topicsForThisFile } from '../../../../scripts/test/kafka.ts';
import { KafkaStreams, Serdes, StreamsBuilder, TopologyError } from '../../src/index.ts';
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

const CUSTOMERS = 20_000;
const ORDERS = 3_000;
/** ~4 MB of customers over 3 partitions: more than kafkajs' 1 MB per partition and fetch. */
const PADDING = 'x'.repeat(200);

let customersTopic: string;
let ordersTopic: string;
let twoPartitions: string;
let threePartitions: string;

beforeAll(async () => {
  [customersTopic, ordersTopic, twoPartitions, threePartitions] = await Promise.all([
    topics.create('join-customers', 3),
    topics.create('join-orders', 3),
    topics.create('join-two', 2),
    topics.create('join-three', 3),
  ]);
  await produce(
    customersTopic,
    Array.from({ length: CUSTOMERS }, (_, i) => ({ key: `c${i}`, value: `name${i}|${PADDING}` })),
  );
  // Each order names a customer among the last ones written, the last to be loaded.
  await produce(
    ordersTopic,
    Array.from({ length: ORDERS }, (_, i) => ({ key: `o${i}`, value: `c${CUSTOMERS - 1 - (i % 500)}` })),
  );
}, 120_000);

function app(builder: StreamsBuilder, applicationId: string): KafkaStreams {
  topics.cleanUpPrefix(applicationId);
  const streams = new KafkaStreams(builder.build(), {
    applicationId,
    brokers: testBrokers(),
    defaultKeySerde: S,
    defaultValueSerde: S,
    commitIntervalMs: 200,
    stateDir: tempStateDir(),
    logger: 'warn',
  });
  apps.push(streams);
  return streams;
}

describe('KStream-GlobalKTable join', () => {
  it('loads all partitions of the global topic before the first join result', async () => {
    const output = await topics.create('join-global-out', 3);
    const b = new StreamsBuilder();
    const customers = b.globalTable<string, string>(customersTopic, {}, { storeName: 'customers' });
    b.stream<string, string>(ordersTopic)
      .leftJoin(
        customers,
        (_orderId, customerId) => customerId,
        (customerId, customer) => `${customerId}=${customer === null ? 'NULL' : customer.split('|')[0]}`,
      )
      .to(output);
    const streams = app(b, uniqueName('join-global-app'));
    await streams.start();
    // start() returns once the stream thread runs, which it starts only after the global load.
    const store = streams.store<string, string>('customers');
    expect(await store.approximateNumEntries()).toBe(CUSTOMERS);
    expect(store.get(`c${CUSTOMERS - 1}`)?.startsWith(`name${CUSTOMERS - 1}|`)).toBe(true);
    const records = await readTopic(output, (r) => r.length >= ORDERS, { timeoutMs: 90_000 });
    const values = records.map((r) => r.value.toString());
    expect(values).toHaveLength(ORDERS);
    expect(values.filter((v) => v.endsWith('=NULL'))).toEqual([]);
    expect(values.every((v) => /^c(\d+)=name\1$/.test(v))).toBe(true);

    // Afterwards the global thread keeps the table current: a new customer, then its order.
    await produce(customersTopic, [{ key: 'c-new', value: `newcomer|${PADDING}` }]);
    await waitFor(() => store.get('c-new') !== undefined, 30_000, 'the new customer in the global store');
    await produce(ordersTopic, [{ key: 'o-new', value: 'c-new' }]);
    const more = await readTopic(output, (r) => r.length > ORDERS, { timeoutMs: 60_000 });
    expect(more.map((r) => r.value.toString())).toContain('c-new=newcomer');
  }, 150_000);
});

describe('global stores across a restart', () => {
  it('reads on from the global checkpoint', async () => {
    const output = await topics.create('join-global-restart-out', 3);
    const applicationId = uniqueName('join-global-restart-app');
    topics.cleanUpPrefix(applicationId);
    const stateDir = tempStateDir();
    const start = async () => {
      const b = new StreamsBuilder();
      const customers = b.globalTable<string, string>(customersTopic, {}, { storeName: 'customers' });
      b.stream<string, string>(twoPartitions)
        .join(
          customers,
          (_k, v) => v,
          (v, c) => `${v}=${c.split('|')[0]}`,
        )
        .to(output);
      const streams = new KafkaStreams(b.build(), {
        applicationId,
        brokers: testBrokers(),
        defaultKeySerde: S,
        defaultValueSerde: S,
        commitIntervalMs: 200,
        stateDir,
        logger: 'warn',
      });
      apps.push(streams);
      await streams.start();
      return streams;
    };
    const first = await start();
    await first.close();
    const checkpoint = await readCheckpoint(join(stateDir, applicationId, 'global', '.checkpoint'));
    expect(checkpoint.filter((c) => c.topic === customersTopic)).toHaveLength(3);
    expect(checkpoint.reduce((n, c) => n + c.offset, 0)).toBeGreaterThanOrEqual(CUSTOMERS);
    const second = await start();
    expect(await second.store<string, string>('customers').approximateNumEntries()).toBeGreaterThanOrEqual(
      CUSTOMERS,
    );
  }, 120_000);
});

describe('co-partitioning', () => {
  it('fails the start when the two source topics of a join differ, naming both and their counts', async () => {
    const output = await topics.create('join-copart-out', 3);
    const b = new StreamsBuilder();
    const table = b.table<string, string>(threePartitions);
    b.stream<string, string>(twoPartitions)
      .join(table, (v, t) => `${v}${t}`)
      .to(output);
    const streams = app(b, uniqueName('join-copart-app'));
    const error = await streams.start().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(TopologyError);
    expect(String((error as Error).message)).toContain(`${twoPartitions} (2 partitions)`);
    expect(String((error as Error).message)).toContain(`${threePartitions} (3 partitions)`);
    expect(streams.state).toBe('ERROR');
  }, 60_000);

  it('repartitions a re-keyed stream to the partition count of its table', async () => {
    const output = await topics.create('join-rekey-out', 3);
    const b = new StreamsBuilder();
    const table = b.table<string, string>(customersTopic);
    b.stream<string, string>(twoPartitions)
      .selectKey((_k, customerId) => customerId)
      .join(table, (v, customer) => `${v}:${customer.split('|')[0]}`, { name: 'by-customer' })
      .to(output);
    const applicationId = uniqueName('join-rekey-app');
    const streams = app(b, applicationId);
    await produce(twoPartitions, [
      { key: 'x', value: 'c7', partition: 0 },
      { key: 'y', value: 'c8', partition: 1 },
    ]);
    await streams.start();
    const records = await readTopic(output, (r) => r.length >= 2, { timeoutMs: 90_000 });
    expect(records.map((r) => r.value.toString()).sort()).toEqual(['c7:name7', 'c8:name8']);
    const admin = testKafka().admin();
    await admin.connect();
    const { topics: meta } = await admin.fetchTopicMetadata({
      topics: [`${applicationId}-by-customer-repartition`],
    });
    await admin.disconnect();
    expect(meta[0]!.partitions).toHaveLength(3);
  }, 150_000);
});

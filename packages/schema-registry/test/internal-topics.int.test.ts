// Registry serdes on internal topics, against the real broker and a real registry: a repartition
// (Repartitioned) and a grouping (Grouped) write Avro through their repartition topics, an
// aggregation (Materialized) keeps Avro values in its store and changelog, each under the
// subject Kafka Streams gives it (`<applicationId>-<name>-repartition-key|value`,
// `<applicationId>-<store>-changelog-key|value`). With a newer compatible aggregate schema, the
// app upgraded in place reads the older values in its local store; on an empty state directory,
// it restores them from the changelog and goes on.
import { SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import { KafkaStreams, Serdes, StreamsBuilder } from '@kstreams/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningRegistry, startRegistry } from '../../../scripts/registry/registry.ts';
import { topicsForThisFile } from '../../../scripts/test/kafka.ts';
import {
  produce,
  readTopic,
  stopAfterEach,
  tempStateDir,
  testBrokers,
  uniqueName,
} from '../../core/test/runtime/kafka-helpers.ts';
import { avroSerde, SchemaRegistryClient } from '../src/index.ts';
import { serdesFor } from './fixtures/formats.ts';

const topics = topicsForThisFile();
const apps = stopAfterEach((app: KafkaStreams) => app.close({ timeoutMs: 30_000 }));
let registry: RunningRegistry;

beforeAll(async () => {
  registry = await startRegistry();
}, 180_000);
afterAll(async () => {
  await registry?.stop();
});

const statsV1 = {
  type: 'record',
  name: 'CustomerStats',
  namespace: 'com.acme.internal',
  fields: [
    { name: 'total', type: 'long' },
    { name: 'orders', type: 'int' },
  ],
};
/** v2 adds a field with a default: a v2 reader restores v1 changelog values. */
const statsV2 = { ...statsV1, fields: [...statsV1.fields, { name: 'largest', type: 'long', default: -1 }] };
type Stats = { total: number; orders: number; largest?: number };

function buildApp(
  applicationId: string,
  input: string,
  output: string,
  stats: object,
  stateDir: string,
): KafkaStreams {
  // A client of its own per instance: the second one has fetched nothing before it restores.
  const registryClient = new SchemaRegistryClient({ url: registry.url });
  const orders = serdesFor.avro.order(registryClient, 1);
  const customerKey = avroSerde<string>({ registry: registryClient, schema: '"string"', isKey: true });
  const statsSerde = avroSerde<Stats>({ registry: registryClient, schema: stats });
  const builder = new StreamsBuilder();
  builder
    .stream(input, { keySerde: Serdes.String(), valueSerde: orders })
    .repartition({ name: 'by-order', keySerde: Serdes.String(), valueSerde: orders })
    .groupBy((_id, o) => o.customer, { name: 'by-customer', keySerde: customerKey, valueSerde: orders })
    .aggregate(
      () => ({ total: 0, orders: 0, largest: 0 }) as Stats,
      (_customer, o, s) => ({
        total: s.total + o.amount,
        orders: s.orders + 1,
        // NaN (JSON null) when the stored value has no `largest`: a v1 value read with v1.
        largest: Math.max(s.largest ?? Number.NaN, o.amount),
      }),
      { storeName: 'stats', keySerde: customerKey, valueSerde: statsSerde },
    )
    .toStream()
    .to(output, { keySerde: customerKey, valueSerde: Serdes.Json<Stats>() });
  return new KafkaStreams(builder.build(), {
    applicationId,
    brokers: testBrokers(),
    processingGuarantee: 'exactly_once',
    commitIntervalMs: 200,
    statestoreCacheMaxBytes: 0,
    stateDir,
    logger: 'warn',
  });
}

describe('registry serdes on repartition topics and changelogs', () => {
  it('writes them under Kafka Streams subjects and restores a store from its changelog', async () => {
    const input = await topics.create('orders');
    const output = await topics.create('stats');
    const applicationId = uniqueName('internal-avro');
    topics.cleanUpPrefix(applicationId);
    const other = new SchemaRegistry({ host: registry.url });
    const writer = serdesFor.avro.order(new SchemaRegistryClient({ url: registry.url }), 1);
    await writer.init([input]);
    const send = (first: number, amounts: Array<[string, number]>) =>
      produce(
        input,
        amounts.map(([customer, amount], i) => ({
          key: `order-${first + i}`,
          value: writer.serialize({ customer, amount }, input),
        })),
      );

    const stateDir = tempStateDir();
    const first = buildApp(applicationId, input, output, statsV1, stateDir);
    apps.push(first);
    await first.start();
    await send(0, [
      ['ann', 10],
      ['bob', 5],
      ['ann', 7],
    ]);
    await readTopic(output, (rs) => rs.length >= 3, { timeoutMs: 60_000 });
    await first.close({ timeoutMs: 30_000 });

    const subjects = (await (await fetch(`${registry.url}/subjects`)).json()) as string[];
    expect(subjects.filter((s) => s.startsWith(applicationId)).sort()).toEqual(
      [
        `${applicationId}-by-customer-repartition-key`,
        `${applicationId}-by-customer-repartition-value`,
        `${applicationId}-by-order-repartition-value`,
        `${applicationId}-stats-changelog-key`,
        `${applicationId}-stats-changelog-value`,
      ].sort(),
    );
    // The changelog holds the store's values in the wire format, readable by another client
    // (a commit logs the last value per key: ann's two updates may be one record).
    const changelog = await readTopic(`${applicationId}-stats-changelog`, (rs) => rs.length >= 2, {
      settleMs: 1_000,
    });
    const changelogId = (await other.getLatestSchemaId(`${applicationId}-stats-changelog-value`)) as number;
    expect(changelog.every((r) => r.value.readInt32BE(1) === changelogId)).toBe(true);
    const logged = await Promise.all(changelog.map(async (r) => ({ ...(await other.decode(r.value)) })));
    expect(logged).toContainEqual({ total: 5, orders: 1 });
    expect(logged).toContainEqual({ total: 17, orders: 2 });

    // The app upgraded in place: same state directory (the store is current, nothing to
    // restore), newer stats schema. It reads the v1 values in its store: start() fetched every
    // schema of the changelog's subject.
    const second = buildApp(applicationId, input, output, statsV2, stateDir);
    apps.push(second);
    await second.start();
    await send(3, [['bob', 20]]);
    await readTopic(output, (rs) => rs.length >= 4, { timeoutMs: 60_000 });
    await second.close({ timeoutMs: 30_000 });

    // A new instance with an empty state directory restores the store from the changelog, which
    // holds v1 and v2 values, and goes on.
    const third = buildApp(applicationId, input, output, statsV2, tempStateDir());
    apps.push(third);
    await third.start();
    await send(4, [
      ['ann', 1],
      ['bob', 2],
    ]);
    const records = await readTopic(output, (rs) => rs.length >= 6, { timeoutMs: 90_000, settleMs: 1_000 });
    expect(records.map((r) => JSON.parse(r.value.toString()))).toEqual([
      { total: 10, orders: 1, largest: 10 },
      { total: 5, orders: 1, largest: 5 },
      { total: 17, orders: 2, largest: null },
      // A v1 value read with v2 carries the v2 default (-1) for the field it did not have.
      { total: 25, orders: 2, largest: 20 },
      { total: 18, orders: 3, largest: 1 },
      { total: 27, orders: 3, largest: 20 },
    ]);
    const after = await readTopic(
      `${applicationId}-stats-changelog`,
      (rs) => rs.length >= changelog.length + 3,
    );
    const v2Id = (await other.getLatestSchemaId(`${applicationId}-stats-changelog-value`)) as number;
    expect(v2Id).not.toBe(changelogId);
    expect(after.slice(changelog.length).map((r) => r.value.readInt32BE(1))).toEqual([v2Id, v2Id, v2Id]);
  }, 240_000);
});

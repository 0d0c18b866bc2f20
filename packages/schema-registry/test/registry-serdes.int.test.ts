// Registry serdes on the real broker and a real Schema Registry (Apicurio, started for this file
// by scripts/registry/registry.ts), each against other registry-aware clients: Avro and JSON
// Schema topologies under exactly_once whose input @kafkajs/confluent-schema-registry writes and
// whose output it decodes; JSON Schema and Protobuf ones whose input Confluent's Python client
// writes and whose output it decodes (scripts/registry/confluent-python.ts); newer compatible
// writer schemas arriving mid-stream; an incompatible one refused.
import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import { KafkaStreams, Serdes, StreamsBuilder } from '@kstreams/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { confluentSerdes } from '../../../scripts/registry/confluent-python.ts';
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
import {
  avroSerde,
  jsonSchemaSerde,
  protobufSerde,
  SchemaRegistryClient,
  SchemaRegistryError,
} from '../src/index.ts';

const topics = topicsForThisFile();
const apps = stopAfterEach((app: KafkaStreams) => app.close({ timeoutMs: 30_000 }));
const S = Serdes.String();
let registry: RunningRegistry;

beforeAll(async () => {
  const started = Date.now();
  registry = await startRegistry();
  console.log(`[registry] Apicurio ready at ${registry.url} in ${Date.now() - started} ms`);
}, 180_000);
afterAll(async () => {
  await registry?.stop();
});

const orderV1 = {
  type: 'record',
  name: 'Order',
  namespace: 'com.acme',
  fields: [
    { name: 'customer', type: 'string' },
    { name: 'amount', type: 'long' },
  ],
};
/** v2 adds a field with a default: BACKWARD compatible, a v2 reader reads v1 records. */
const orderV2 = {
  ...orderV1,
  fields: [...orderV1.fields, { name: 'currency', type: 'string', default: 'EUR' }],
};
const totalSchema = {
  type: 'record',
  name: 'CustomerTotal',
  namespace: 'com.acme',
  fields: [
    { name: 'customer', type: 'string' },
    { name: 'total', type: 'long' },
    { name: 'orders', type: 'int' },
    { name: 'lastCurrency', type: 'string' },
  ],
};
type Order = { customer: string; amount: number; currency: string };
type Total = { customer: string; total: number; orders: number; lastCurrency: string };

describe('avroSerde against a real registry and broker', () => {
  it('aggregates Avro orders exactly once, across a writer schema change, readable by another client', async () => {
    const input = await topics.create('orders');
    const output = await topics.create('totals');
    const applicationId = uniqueName('avro-app');
    const client = new SchemaRegistryClient({ url: registry.url });
    const other = new SchemaRegistry({ host: registry.url });

    // The producer side is another client: kstreams must read what it writes.
    const { id: v1 } = await other.register(
      { type: SchemaType.AVRO, schema: JSON.stringify(orderV1) },
      { subject: `${input}-value` },
    );
    const first = [
      { customer: 'ann', amount: 10 },
      { customer: 'bob', amount: 5 },
      { customer: 'ann', amount: 7 },
    ];
    await produce(
      input,
      await Promise.all(first.map(async (o) => ({ key: o.customer, value: await other.encode(v1, o) }))),
    );

    const orders = avroSerde<Order>({ registry: client, schema: orderV2, autoRegister: false });
    const totals = avroSerde<Total>({ registry: client, schema: totalSchema });
    await totals.init([output]);
    const builder = new StreamsBuilder();
    builder
      .stream(input, { keySerde: S, valueSerde: orders })
      .groupByKey()
      .aggregate(
        () => ({ customer: '', total: 0, orders: 0, lastCurrency: '' }) as Total,
        (customer, order, agg) => ({
          customer,
          total: agg.total + order.amount,
          orders: agg.orders + 1,
          lastCurrency: order.currency,
        }),
        { valueSerde: Serdes.Json<Total>() },
      )
      .toStream()
      .to(output, { keySerde: S, valueSerde: totals });
    const app = new KafkaStreams(builder.build(), {
      applicationId,
      brokers: testBrokers(),
      processingGuarantee: 'exactly_once',
      commitIntervalMs: 200,
      statestoreCacheMaxBytes: 0, // every update reaches the output, none coalesced
      stateDir: tempStateDir(),
      logger: 'warn',
    });
    topics.cleanUpPrefix(applicationId);
    apps.push(app);
    await app.start();

    // Mid-stream: v2 registered (compatible) and records written with it.
    const { id: v2 } = await other.register(
      { type: SchemaType.AVRO, schema: JSON.stringify(orderV2) },
      { subject: `${input}-value` },
    );
    expect(v2).not.toBe(v1);
    const second = [
      { customer: 'bob', amount: 20, currency: 'USD' },
      { customer: 'ann', amount: 1, currency: 'GBP' },
    ];
    await produce(
      input,
      await Promise.all(second.map(async (o) => ({ key: o.customer, value: await other.encode(v2, o) }))),
    );

    const records = await readTopic(output, (rs) => rs.length >= 5, { timeoutMs: 60_000, settleMs: 2_000 });
    // Decoded by the other client, with the schema it fetches by the id kstreams wrote.
    const decoded = await Promise.all(records.map(async (r) => ({ ...(await other.decode(r.value)) })));
    expect(decoded).toEqual([
      { customer: 'ann', total: 10, orders: 1, lastCurrency: 'EUR' },
      { customer: 'bob', total: 5, orders: 1, lastCurrency: 'EUR' },
      { customer: 'ann', total: 17, orders: 2, lastCurrency: 'EUR' },
      { customer: 'bob', total: 25, orders: 2, lastCurrency: 'USD' },
      { customer: 'ann', total: 18, orders: 3, lastCurrency: 'GBP' },
    ]);
    // Registered under the topic strategy's subject.
    const latest = await client.latest(`${output}-value`);
    expect(records.every((r) => r.value.readInt32BE(1) === latest.id)).toBe(true);
  }, 180_000);

  it('an incompatible schema is refused with an error that says what to change', async () => {
    const topic = uniqueName('compat');
    const client = new SchemaRegistryClient({ url: registry.url });
    await avroSerde({ registry: client, schema: orderV1 }).init([topic]);
    await fetch(`${registry.url}/config/${topic}-value`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ compatibility: 'BACKWARD' }),
    });
    const renamed = { ...orderV1, fields: [{ name: 'buyer', type: 'string' }] };
    const err = await avroSerde({ registry: client, schema: renamed })
      .init([topic])
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SchemaRegistryError);
    expect((err as Error).message).toMatch(/refused the schema for subject .*-value. as incompatible/);
  }, 60_000);

  it('an unknown schema id goes to the deserialization exception handler', async () => {
    const client = new SchemaRegistryClient({ url: registry.url, retries: 0 });
    const serde = avroSerde({ registry: client, schema: orderV1 });
    const bytes = Buffer.from([0, 0, 0, 0x7f, 0x7f, 2, 0x61, 2]);
    await serde.prepare(bytes);
    expect(() => serde.deserialize(bytes)).toThrow(/schema id 32639 is not in the registry/);
  }, 60_000);
});

const paymentSchema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'Payment',
  type: 'object',
  properties: { customer: { type: 'string' }, amount: { type: 'integer', minimum: 0 } },
  required: ['customer', 'amount'],
};
const balanceSchema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'Balance',
  type: 'object',
  properties: { customer: { type: 'string' }, paid: { type: 'integer' } },
  required: ['customer', 'paid'],
};
type Payment = { customer: string; amount: number };
type Balance = { customer: string; paid: number };

describe('jsonSchemaSerde against a real registry and broker', () => {
  it('aggregates JSON Schema records exactly once, interoperating with another client', async () => {
    const input = await topics.create('payments');
    const output = await topics.create('balances');
    const applicationId = uniqueName('json-app');
    const client = new SchemaRegistryClient({ url: registry.url });
    const other = new SchemaRegistry({ host: registry.url });
    const { id } = await other.register(
      { type: SchemaType.JSON, schema: JSON.stringify(paymentSchema) },
      { subject: `${input}-value` },
    );
    const payments = [
      { customer: 'ann', amount: 3 },
      { customer: 'bob', amount: 4 },
      { customer: 'ann', amount: 5 },
    ];
    await produce(
      input,
      await Promise.all(payments.map(async (p) => ({ key: p.customer, value: await other.encode(id, p) }))),
    );
    // A record not in the wire format: the handler decides (here: skip it).
    await produce(input, [{ key: 'ann', value: '{"customer":"ann","amount":100}' }]);
    // And one from Confluent's Python client (JSONSerializer, registering its own schema text).
    const python = { format: 'json' as const, registry: registry.url, topic: input, schema: paymentSchema };
    const [fromPython] = await confluentSerdes('encode', python, [{ customer: 'bob', amount: 6 }]);
    await produce(input, [{ key: 'bob', value: fromPython as Buffer }]);

    const balances = jsonSchemaSerde<Balance>({ registry: client, schema: balanceSchema });
    await balances.init([output]);
    const builder = new StreamsBuilder();
    builder
      .stream(input, {
        keySerde: S,
        valueSerde: jsonSchemaSerde<Payment>({
          registry: client,
          schema: paymentSchema,
          autoRegister: false,
        }),
      })
      .groupByKey()
      .aggregate(
        () => ({ customer: '', paid: 0 }) as Balance,
        (customer, p, b) => ({ customer, paid: b.paid + p.amount }),
        { valueSerde: Serdes.Json<Balance>() },
      )
      .toStream()
      .to(output, { keySerde: S, valueSerde: balances });
    const app = new KafkaStreams(builder.build(), {
      applicationId,
      brokers: testBrokers(),
      processingGuarantee: 'exactly_once',
      commitIntervalMs: 200,
      statestoreCacheMaxBytes: 0,
      deserializationExceptionHandler: 'logAndContinue',
      stateDir: tempStateDir(),
      logger: 'error',
    });
    topics.cleanUpPrefix(applicationId);
    apps.push(app);
    await app.start();

    const records = await readTopic(output, (rs) => rs.length >= 4, { timeoutMs: 60_000, settleMs: 2_000 });
    const expected = [
      { customer: 'ann', paid: 3 },
      { customer: 'bob', paid: 4 },
      { customer: 'ann', paid: 8 },
      { customer: 'bob', paid: 10 },
    ];
    const decoded = await Promise.all(records.map(async (r) => ({ ...(await other.decode(r.value)) })));
    expect(decoded).toEqual(expected);
    // Confluent's JSONDeserializer fetches the writer schema by id and validates against it.
    const values = records.map((r) => r.value);
    expect(
      await confluentSerdes('decode', { ...python, topic: output, schema: balanceSchema }, values),
    ).toEqual(expected);
    // A record that breaks the writer's schema is refused before it is sent.
    expect(() => balances.serialize({ customer: 'x', paid: 'lots' } as unknown as Balance, output)).toThrow(
      /does not match its JSON Schema: data\/paid must be integer/,
    );
  }, 180_000);
});

const protoV2 = `syntax = "proto3";
package com.acme;
message Sale { string customer = 1; int64 amount = 2; string shop = 3; }`;
const protoTotal = `syntax = "proto3";
package com.acme;
message SalesTotal { string customer = 1; int64 total = 2; repeated string shops = 3; }`;
type Sale = { customer: string; amount: number; shop: string };
type SalesTotal = { customer: string; total: number; shops: string[] };

describe('protobufSerde against a real registry and broker', () => {
  it("aggregates Protobuf records exactly once across a new version, interoperating with Confluent's client", async () => {
    const input = await topics.create('sales');
    const output = await topics.create('sales-totals');
    const applicationId = uniqueName('proto-app');
    // v1 is written by Confluent's Python client: it registers its schema as a serialized
    // FileDescriptorProto, which Apicurio keeps as given; kstreams reads that form too.
    const python = {
      format: 'protobuf' as const,
      registry: registry.url,
      topic: input,
      package: 'com.acme',
      message: 'Sale',
    };
    const fromPython = await confluentSerdes(
      'encode',
      {
        ...python,
        fields: [
          { name: 'customer', number: 1, type: 'string' },
          { name: 'amount', number: 2, type: 'int64' },
        ],
      },
      [
        { customer: 'ann', amount: 2 },
        { customer: 'bob', amount: 3 },
      ],
    );
    await produce(input, [
      { key: 'ann', value: fromPython[0] as Buffer },
      { key: 'bob', value: fromPython[1] as Buffer },
    ]);

    const client = new SchemaRegistryClient({ url: registry.url });
    const totals = protobufSerde<SalesTotal>({ registry: client, schema: protoTotal });
    await totals.init([output]);
    const builder = new StreamsBuilder();
    builder
      .stream(input, { keySerde: S, valueSerde: protobufSerde<Sale>({ registry: client, schema: protoV2 }) })
      .groupByKey()
      .aggregate(
        () => ({ customer: '', total: 0, shops: [] }) as SalesTotal,
        (customer, s, t) => ({ customer, total: t.total + s.amount, shops: [...t.shops, s.shop || '-'] }),
        { valueSerde: Serdes.Json<SalesTotal>() },
      )
      .toStream()
      .to(output, { keySerde: S, valueSerde: totals });
    const app = new KafkaStreams(builder.build(), {
      applicationId,
      brokers: testBrokers(),
      processingGuarantee: 'exactly_once',
      commitIntervalMs: 200,
      statestoreCacheMaxBytes: 0,
      stateDir: tempStateDir(),
      logger: 'warn',
    });
    topics.cleanUpPrefix(applicationId);
    apps.push(app);
    await app.start();

    // Mid-stream, v2 from kstreams' own writer, registered as .proto text under the same subject.
    const v2 = protobufSerde<Sale>({
      registry: new SchemaRegistryClient({ url: registry.url }),
      schema: protoV2,
    });
    await v2.init([input]);
    await produce(input, [
      { key: 'ann', value: v2.serialize({ customer: 'ann', amount: 5, shop: 'north' }, input) },
    ]);

    const records = await readTopic(output, (rs) => rs.length >= 3, { timeoutMs: 60_000, settleMs: 2_000 });
    // Read by Confluent's ProtobufDeserializer: the framing, the message indexes, the payload.
    const decoded = await confluentSerdes(
      'decode',
      {
        ...python,
        topic: output,
        message: 'SalesTotal',
        fields: [
          { name: 'customer', number: 1, type: 'string' },
          { name: 'total', number: 2, type: 'int64' },
          { name: 'shops', number: 3, type: 'string', repeated: true },
        ],
      },
      records.map((r) => r.value),
    );
    expect(decoded).toEqual([
      { customer: 'ann', total: 2, shops: ['-'] },
      { customer: 'bob', total: 3, shops: ['-'] },
      { customer: 'ann', total: 7, shops: ['-', 'north'] },
    ]);
    // Confluent's header for the file's first message: the single index byte 0 after the id.
    expect(records.every((r) => r.value[5] === 0)).toBe(true);
  }, 180_000);
});

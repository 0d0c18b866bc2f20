// Registry serdes where records are deserialized outside the plain source path, against the real
// broker and a real registry (Apicurio, started for this file by scripts/registry/registry.ts):
// a source with a custom TimestampExtractor reading a field of its Avro value, joined with a
// global table of Avro values, both written by another client under schema ids the app has never
// seen; and a left stream-stream join keeping Avro values of both sides in its shared store.
import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import { JoinWindows, KafkaStreams, Serdes, StreamsBuilder } from '@kstreams/core';
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

const topics = topicsForThisFile();
const apps = stopAfterEach((app: KafkaStreams) => app.close({ timeoutMs: 30_000 }));
const S = Serdes.String();
let registry: RunningRegistry;

beforeAll(async () => {
  registry = await startRegistry();
}, 180_000);
afterAll(async () => {
  await registry?.stop();
});

const eventSchema = {
  type: 'record',
  name: 'Event',
  namespace: 'com.acme.sources',
  fields: [
    { name: 'customer', type: 'string' },
    { name: 'eventTime', type: 'long' },
  ],
};
const customerSchema = {
  type: 'record',
  name: 'Customer',
  namespace: 'com.acme.sources',
  fields: [{ name: 'name', type: 'string' }],
};
type Event = { customer: string; eventTime: number };
type Customer = { name: string };

function start(app: KafkaStreams, applicationId: string): Promise<void> {
  topics.cleanUpPrefix(applicationId);
  apps.push(app);
  return app.start();
}

const config = (applicationId: string) => ({
  applicationId,
  brokers: testBrokers(),
  commitIntervalMs: 200,
  stateDir: tempStateDir(),
  logger: 'warn' as const,
});

describe('registry serdes beyond plain sources', () => {
  it('an Avro source with a TimestampExtractor of a value field, joined with an Avro global table', async () => {
    const events = await topics.create('events');
    const customers = await topics.create('customers');
    const output = await topics.create('enriched');
    const other = new SchemaRegistry({ host: registry.url });
    const { id: customerId } = await other.register(
      { type: SchemaType.AVRO, schema: JSON.stringify(customerSchema) },
      { subject: `${customers}-value` },
    );
    const { id: eventId } = await other.register(
      { type: SchemaType.AVRO, schema: JSON.stringify(eventSchema) },
      { subject: `${events}-value` },
    );
    await produce(customers, [
      { key: 'c1', value: await other.encode(customerId, { name: 'Ann' }) },
      { key: 'c2', value: await other.encode(customerId, { name: 'Bob' }) },
    ]);
    const sent: Event[] = [
      { customer: 'c1', eventTime: 1_700_000_001_000 },
      { customer: 'c2', eventTime: 1_700_000_005_000 },
      { customer: 'c1', eventTime: 1_700_000_003_000 },
    ];
    // The record timestamps are now: only the extractor gives the event times.
    await produce(
      events,
      await Promise.all(sent.map(async (e) => ({ key: e.customer, value: await other.encode(eventId, e) }))),
    );

    // A fresh client: every schema id is unknown to the app when its records arrive.
    const client = new SchemaRegistryClient({ url: registry.url });
    const builder = new StreamsBuilder();
    const table = builder.globalTable(customers, {
      keySerde: S,
      // Its store writes under the topic's subject (the store's changelog): init registers there.
      valueSerde: avroSerde<Customer>({ registry: client, schema: customerSchema }),
    });
    builder
      .stream(events, {
        keySerde: S,
        valueSerde: avroSerde<Event>({ registry: client, schema: eventSchema, autoRegister: false }),
        timestampExtractor: { extract: (r) => (r.value as Event).eventTime },
      })
      .join(
        table,
        (_k, e) => e.customer,
        (e: Event, c: Customer) => `${c.name}@${e.eventTime}`,
      )
      .to(output, { keySerde: S, valueSerde: S });
    const applicationId = uniqueName('extractor-global');
    await start(new KafkaStreams(builder.build(), config(applicationId)), applicationId);

    const records = await readTopic(output, (rs) => rs.length >= 3, { timeoutMs: 60_000, settleMs: 1_000 });
    expect(records.map((r) => [r.value.toString(), r.timestamp])).toEqual(
      sent.map((e) => [`${e.customer === 'c1' ? 'Ann' : 'Bob'}@${e.eventTime}`, e.eventTime]),
    );
  }, 180_000);

  it("a left stream-stream join keeps both sides' Avro values in its shared store", async () => {
    const left = await topics.create('left');
    const right = await topics.create('right');
    const output = await topics.create('joined');
    const client = new SchemaRegistryClient({ url: registry.url });
    const lefts = avroSerde<Event>({ registry: client, schema: eventSchema });
    const rights = avroSerde<Customer>({ registry: client, schema: customerSchema });
    const builder = new StreamsBuilder();
    builder
      .stream(left, { keySerde: S, valueSerde: lefts })
      .leftJoin(
        builder.stream(right, { keySerde: S, valueSerde: rights }),
        (e: Event, c: Customer | null) => `${e.eventTime}:${c?.name ?? 'none'}`,
        JoinWindows.ofTimeDifferenceWithNoGrace(1_000),
        { keySerde: S, valueSerde: lefts, otherValueSerde: rights },
      )
      .to(output, { keySerde: S, valueSerde: S });
    const applicationId = uniqueName('left-join');
    await start(new KafkaStreams(builder.build(), config(applicationId)), applicationId);

    const writer = new SchemaRegistryClient({ url: registry.url });
    const leftIn = avroSerde<Event>({ registry: writer, schema: eventSchema });
    await leftIn.init([left]);
    // An unmatched left record waits in the shared store until stream time passes its window.
    await produce(left, [
      { key: 'k', value: leftIn.serialize({ customer: 'c1', eventTime: 1 }, left), timestamp: 1_000 },
    ]);
    await produce(left, [
      { key: 'x', value: leftIn.serialize({ customer: 'c9', eventTime: 2 }, left), timestamp: 5_000 },
    ]);
    const records = await readTopic(output, (rs) => rs.length >= 1, { timeoutMs: 60_000, settleMs: 1_000 });
    expect(records.map((r) => [r.key, r.value.toString()])).toEqual([['k', '1:none']]);
    // Its Avro value went through the shared store's changelog subject.
    const subjects = (await (await fetch(`${registry.url}/subjects`)).json()) as string[];
    expect(subjects).toEqual(
      expect.arrayContaining([expect.stringMatching(/(OUTERSHARED|shared-join).*-changelog-value$/)]),
    );
  }, 180_000);
});

// `npm run demo -- avro`: Avro orders through a Schema Registry. A registry (SCHEMA_REGISTRY_URL,
// or Apicurio built and started here by scripts/registry), generated orders written as Avro with
// schema v1 and then v2 (a field added with a default), an exactly_once app summing them per
// customer into Avro totals (in its store and changelog too), and the final totals read back
// read_committed and checked.
import { KafkaStreams, Serdes, StreamsBuilder } from '@kstreams/core';
import { avroSerde, SchemaRegistryClient } from '@kstreams/schema-registry';
import { startRegistry } from '../../../../scripts/registry/registry.ts';
import { CommittedReader } from '../common/committed-reader.ts';
import { DemoFailure, num, runDemo, say, secs } from '../common/demo.ts';
import { feederProducer } from '../common/kafka.ts';
import { ensureTopics } from '../common/topics.ts';

const ORDERS = 20_000;
const CUSTOMERS = 50;
const order = (fields: object[]) => ({ type: 'record', name: 'Order', namespace: 'demo', fields });
const orderV1 = order([
  { name: 'customer', type: 'string' },
  { name: 'amount', type: 'long' },
]);
const orderV2 = order([
  { name: 'customer', type: 'string' },
  { name: 'amount', type: 'long' },
  { name: 'channel', type: 'string', default: 'shop' },
]);
const totalSchema = {
  type: 'record',
  name: 'Total',
  namespace: 'demo',
  fields: [
    { name: 'customer', type: 'string' },
    { name: 'total', type: 'long' },
    { name: 'online', type: 'int' },
  ],
};
type Order = { customer: string; amount: number; channel: string };
type Total = { customer: string; total: number; online: number };

await runDemo('avro', async (ctx) => {
  const began = Date.now();
  let url = process.env.SCHEMA_REGISTRY_URL;
  if (url) {
    say(`Schema Registry: ${url} (SCHEMA_REGISTRY_URL)`);
  } else {
    const registry = await startRegistry({ log: (m) => say(m) });
    ctx.onCleanUp(() => registry.stop());
    url = registry.url;
    say(`Schema Registry: Apicurio at ${url} (started for this demo)`);
  }
  const registry = new SchemaRegistryClient({ url });
  const input = `${ctx.run}-orders`;
  const output = `${ctx.run}-totals`;
  await ensureTopics(ctx.admin, [input, output], 4);
  ctx.onCleanUp(() => ctx.admin.deleteTopics({ topics: [input, output] }));

  // Orders: the first half with v1, the rest with v2; the truth computed alongside.
  const truth = new Map<string, Total>();
  const producer = feederProducer(ctx.kafka);
  await producer.connect();
  for (const [version, schema] of [
    [1, orderV1],
    [2, orderV2],
  ] as const) {
    const writer = avroSerde<Order>({ registry, schema });
    await writer.init([input]);
    const messages = [];
    for (let i = (version - 1) * (ORDERS / 2); i < (version * ORDERS) / 2; i++) {
      const customer = `c${i % CUSTOMERS}`;
      const o = {
        customer,
        amount: (i * 7) % 100,
        channel: version === 2 && i % 3 === 0 ? 'online' : 'shop',
      };
      const t = truth.get(customer) ?? { customer, total: 0, online: 0 };
      truth.set(customer, {
        customer,
        total: t.total + o.amount,
        online: t.online + (o.channel === 'online' ? 1 : 0),
      });
      messages.push({ key: customer, value: writer.serialize(o, input) });
    }
    await producer.send({ topic: input, messages });
    say(`Wrote ${num(ORDERS / 2)} orders with schema v${version}`);
  }
  await producer.disconnect();

  // The totals are Avro in the store and its changelog too (subject
  // `<applicationId>-totals-changelog-value`); start() registers the schema for both topics.
  const totals = avroSerde<Total>({ registry, schema: totalSchema });
  const builder = new StreamsBuilder();
  builder
    .stream(input, { keySerde: Serdes.String(), valueSerde: avroSerde<Order>({ registry, schema: orderV2 }) })
    .groupByKey()
    .aggregate(
      () => ({ customer: '', total: 0, online: 0 }) as Total,
      (customer, o, t) => ({
        customer,
        total: t.total + o.amount,
        online: t.online + (o.channel === 'online' ? 1 : 0),
      }),
      { storeName: 'totals', valueSerde: totals },
    )
    .toStream()
    .to(output, { keySerde: Serdes.String(), valueSerde: totals });
  const app = new KafkaStreams(builder.build(), {
    applicationId: ctx.run,
    brokers: ctx.brokers,
    processingGuarantee: 'exactly_once',
    stateDir: ctx.stateDir,
    logger: ctx.logger,
  });
  ctx.onCleanUp(() => app.close({ timeoutMs: 20_000 }));
  await app.start();

  const reader = avroSerde<Total>({ registry });
  const latest = new Map<string, Total>();
  const committed = new CommittedReader(ctx.kafka, output, `${ctx.run}-reader`, (r) => {
    // The reader's schemas come from the registry too: fetched before the demo reads the values.
    pending.push(r.value);
  });
  const pending: Buffer[] = [];
  await committed.start();
  ctx.onCleanUp(() => committed.stop());
  const deadline = Date.now() + 180_000;
  const right = () => [...truth].every(([c, t]) => JSON.stringify(latest.get(c)) === JSON.stringify(t));
  while (!right()) {
    if (Date.now() > deadline)
      throw new DemoFailure('the totals did not reach the expected values in 3 minutes');
    for (const bytes of pending.splice(0)) {
      await reader.prepare(bytes);
      const t = { ...reader.deserialize(bytes) };
      latest.set(t.customer, t);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  say(`All ${CUSTOMERS} customers' Avro totals match the orders (${secs(Date.now() - began)})`);
});

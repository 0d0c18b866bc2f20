// The enrichment topology in the test driver: a hand-worked case of each join, then the
// generator's shop, whose output must be exactly the generator's expected output.
import { type Serde, Serdes } from '@kstreams/core';
import { TopologyTestDriver } from '@kstreams/core/testing';
import { describe, expect, it } from 'vitest';
import { generateShop, type Shop, type ShopEvent } from '../src/enrichment/generator.ts';
import { parseEnrichmentArgs, parseShopArgs } from '../src/enrichment/options.ts';
import { enrichmentTopics, enrichmentTopology, MINUTE_MS, serdes } from '../src/enrichment/topology.ts';

const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);
const topics = enrichmentTopics('shop', 'out');

async function run(shop: Pick<Shop, 'customers' | 'products'> & { events: readonly ShopEvent[] }) {
  const driver = new TopologyTestDriver(enrichmentTopology(topics));
  const str = Serdes.String();
  const customers = driver.createInputTopic(topics.customers, str, serdes.customer);
  const products = driver.createInputTopic(topics.products, str, serdes.product);
  const orders = driver.createInputTopic(topics.orders, str, serdes.order);
  const payments = driver.createInputTopic(topics.payments, str, serdes.payment);
  for (const c of shop.customers) await customers.pipeInput(c.key, c.value, c.timestamp);
  for (const p of shop.products) await products.pipeInput(p.key, p.value, p.timestamp);
  for (const e of shop.events) {
    if (e.topic === 'orders') await orders.pipeInput(e.key, e.value, e.timestamp);
    else await payments.pipeInput(e.key, e.value, e.timestamp);
  }
  const read = <V>(topic: string, serde: Serde<V>) =>
    driver
      .createOutputTopic(topic, str, serde)
      .readRecordsToList()
      .map((r) => ({ key: r.key!, value: r.value!, timestamp: r.timestamp }));
  const output = {
    enriched: read(topics.enriched, serdes.enriched),
    status: read(topics.status, serdes.status),
  };
  return { driver, output };
}

const byKey = <T extends { key: string }>(list: readonly T[]) =>
  [...list].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));

describe('enrichment topology', () => {
  it('enriches an order with its customer and product, and reports it unpaid only once its window has closed', async () => {
    const m = MINUTE_MS;
    const kettle = { name: 'kettle', category: 'kitchen' };
    const ada = { name: 'Ada Byrne', city: 'Cork' };
    const shop = {
      customers: [{ key: 'c-1', value: ada, timestamp: T0 - m }],
      products: [{ key: 'p-1', value: kettle, timestamp: T0 - m }],
      events: [
        {
          topic: 'orders',
          key: 'o-1',
          value: { customerId: 'c-1', productId: 'p-1', amount: 10 },
          timestamp: T0,
        },
        {
          topic: 'orders',
          key: 'o-2',
          value: { customerId: 'g-9', productId: 'p-1', amount: 20 },
          timestamp: T0 + m,
        },
        // o-1 paid after 9 minutes: inside the 10-minute window.
        { topic: 'payments', key: 'o-1', value: { amount: 10 }, timestamp: T0 + 9 * m },
        // Stream time T0 + 12 min: o-2's window (to T0 + 11 min, grace 1 min) is not closed yet.
        { topic: 'payments', key: 'x', value: { amount: 0 }, timestamp: T0 + 12 * m },
        // o-2 paid 10.5 minutes after the order, outside its window: not a payment of it...
        {
          topic: 'payments',
          key: 'o-2',
          value: { amount: 20 },
          timestamp: T0 + 11.5 * m,
        },
        // ...and stream time past T0 + 12 min closes its window: reported unpaid.
        { topic: 'payments', key: 'x', value: { amount: 0 }, timestamp: T0 + 13 * m },
      ],
    } satisfies Parameters<typeof run>[0];
    // Before the last record o-2's window is still open: no status for it yet.
    const early = await run({ ...shop, events: shop.events.slice(0, -1) });
    expect(early.output.status.map((r) => [r.key, r.value.status])).toEqual([['o-1', 'paid']]);
    await early.driver.close();
    const { driver, output } = await run(shop);
    expect(output.enriched).toEqual([
      {
        key: 'o-1',
        value: { customerId: 'c-1', productId: 'p-1', amount: 10, customer: ada, product: kettle },
        timestamp: T0,
      },
      {
        key: 'o-2',
        value: { customerId: 'g-9', productId: 'p-1', amount: 20, customer: null, product: kettle },
        timestamp: T0 + m,
      },
    ]);
    expect(output.status).toEqual([
      {
        key: 'o-1',
        value: { status: 'paid', customerId: 'c-1', amount: 10, paid: 10 },
        timestamp: T0 + 9 * m,
      },
      { key: 'o-2', value: { status: 'unpaid', customerId: 'g-9', amount: 20 }, timestamp: T0 + m },
    ]);
    await driver.close();
  });

  it('rejects an order without an amount, saying what it needs', () => {
    expect(() => serdes.order.deserialize(Buffer.from('{"customerId":"c-1","productId":"p-1"}'))).toThrow(
      /an order needs a number "amount" field, e\.g\. \{"customerId"/,
    );
  });

  it('takes topic prefixes and the shop flags, saying what is wrong', () => {
    expect(parseEnrichmentArgs([], {})).toMatchObject({
      applicationId: 'enrichment',
      input: 'shop',
      output: 'shop-out',
    });
    expect(enrichmentTopics('shop', 'shop-out')).toEqual({
      orders: 'shop-orders',
      payments: 'shop-payments',
      customers: 'shop-customers',
      products: 'shop-products',
      enriched: 'shop-out-enriched-orders',
      status: 'shop-out-order-status',
    });
    expect(parseShopArgs(['--orders', '300'])).toEqual({ orders: 300, customers: 200, seed: 42 });
    expect(() => parseShopArgs(['--orders', '0'])).toThrow(
      '--orders must be a whole number from 1 to 1000000, got "0"',
    );
    expect(() => parseShopArgs(['--users', '2'])).toThrow(
      /takes --orders <n>, --customers <n> and --seed <n>/,
    );
  });

  it("gives exactly the generator's expected output for its shop, timestamps included", async () => {
    const shop = generateShop({ seed: 3, orders: 1_500, customers: 100, startMs: T0, partitions: 1 });
    expect(shop.counts.guests).toBeGreaterThan(0);
    expect(shop.counts.paidLate).toBeGreaterThan(0);
    expect(shop.counts.neverPaid).toBeGreaterThan(0);
    const { driver, output } = await run({ ...shop, events: [...shop.events, ...shop.endOfData] });
    expect(output.enriched).toHaveLength(shop.expected.enriched.length);
    expect(byKey(output.enriched)).toEqual(byKey(shop.expected.enriched));
    expect(output.status).toHaveLength(shop.expected.status.length);
    expect(byKey(output.status)).toEqual(byKey(shop.expected.status));
    expect(driver.droppedRecordsTotal).toBe(0);
    await driver.close();
  });
});

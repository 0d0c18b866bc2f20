import type { Serde } from '@kstreams/core';
import type { Message, Producer } from 'kafkajs';
import type { Keyed, ShopEvent } from './generator.ts';
import { type Customer, type EnrichmentTopics, type Product, serdes } from './topology.ts';

const message = <V>(serde: Serde<V>, r: Keyed<V>): Message => ({
  key: r.key,
  value: serde.serialize(r.value),
  timestamp: String(r.timestamp),
});

/** Customers and products: to be in their topics before the app starts (see generator.ts). */
export async function sendReferenceData(
  producer: Producer,
  topics: EnrichmentTopics,
  data: { customers: readonly Keyed<Customer>[]; products: readonly Keyed<Product>[] },
): Promise<void> {
  await producer.sendBatch({
    acks: -1,
    topicMessages: [
      { topic: topics.customers, messages: data.customers.map((c) => message(serdes.customer, c)) },
      { topic: topics.products, messages: data.products.map((p) => message(serdes.product, p)) },
    ],
  });
}

/**
 * Sends orders and payments in the order given, `batchSize` at a time, each batch to both topics
 * in one request: what a task reads of the two topics then differs by at most a batch, a minute or
 * so of simulated time, well inside the payment window's margins. `onBatch` may pause the feed.
 */
export async function sendEvents(
  producer: Producer,
  topics: EnrichmentTopics,
  events: readonly ShopEvent[],
  options: { batchSize?: number; onBatch?: (sent: number) => Promise<void> } = {},
): Promise<void> {
  const { batchSize = 100, onBatch } = options;
  for (let i = 0; i < events.length; i += batchSize) {
    const orders: Message[] = [];
    const payments: Message[] = [];
    for (const e of events.slice(i, i + batchSize)) {
      if (e.topic === 'orders') orders.push(message(serdes.order, e));
      else payments.push(message(serdes.payment, e));
    }
    await producer.sendBatch({
      acks: -1,
      topicMessages: [
        { topic: topics.orders, messages: orders },
        { topic: topics.payments, messages: payments },
      ].filter((t) => t.messages.length > 0),
    });
    await onBatch?.(Math.min(events.length, i + batchSize));
  }
}

import type { Producer } from 'kafkajs';
import type { PageView } from './generator.ts';
import { pageViewSerde } from './topology.ts';

/**
 * Sends the views in their order, keyed by user, the page as JSON, the event time as the record's
 * timestamp, in batches (one request per send() call). With the idempotent, one-in-flight feeder
 * producer the order within each partition is the order given.
 */
export async function sendPageViews(
  producer: Producer,
  topic: string,
  views: readonly PageView[],
  batchSize = 500,
): Promise<number> {
  for (let i = 0; i < views.length; i += batchSize) {
    await producer.send({
      topic,
      acks: -1,
      messages: views.slice(i, i + batchSize).map((v) => ({
        key: v.user,
        value: pageViewSerde.serialize(v.page),
        timestamp: String(v.timestamp),
      })),
    });
  }
  return views.length;
}

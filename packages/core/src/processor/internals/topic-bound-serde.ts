// A store's serdes see its changelog topic, as in Kafka Streams (a store's StateSerdes carry the
// changelog topic name, `<applicationId>-<store>-changelog`, also for a store without logging):
// stores serialize without a topic, so a serde whose bytes depend on the topic (a Schema
// Registry serde: the subject, hence the schema id, comes from it) is bound to that topic here.
// Serdes that do not look at the topic (every built-in one) are returned as they are.
import type { Serde } from '../../serdes/serde.ts';
import { TimestampSkippingSerde } from '../../state/value-and-timestamp.ts';

/** Does the serde resolve or fetch anything per topic (has `prepare` or `init`)? */
export function isTopicAware(serde: Serde<unknown>): boolean {
  return typeof serde.prepare === 'function' || typeof serde.init === 'function';
}

class TopicBoundSerde<T> implements Serde<T> {
  constructor(
    readonly inner: Serde<T>,
    readonly topic: string,
  ) {}

  serialize(data: T): Buffer {
    return this.inner.serialize(data, this.topic);
  }

  deserialize(data: Buffer): T {
    return this.inner.deserialize(data, this.topic);
  }

  prepare(data: Buffer): Promise<void> | undefined {
    return this.inner.prepare?.(data, this.topic);
  }
}

/** The serde, its calls made with `topic`; a timestamped store's wrapper keeps its class. */
export function bindToTopic<T>(serde: Serde<T>, topic: string): Serde<T> {
  if (serde instanceof TimestampSkippingSerde) {
    const inner = (serde as TimestampSkippingSerde<T>).valueSerde;
    return isTopicAware(inner) ? serde.around(new TopicBoundSerde(inner, topic)) : serde;
  }
  return isTopicAware(serde) ? new TopicBoundSerde(serde, topic) : serde;
}

/** The serde a store's or sink's serde stands for: what `init` is called on. */
export function unwrapStoreSerde(serde: Serde<unknown>): Serde<unknown> {
  return serde instanceof TimestampSkippingSerde ? serde.valueSerde : serde;
}

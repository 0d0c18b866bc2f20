// The right (foreign) side of the foreign-key join (KIP-213), with Kafka Streams 4.4's semantics:
// SubscriptionReceiveProcessorSupplier keeps each subscription in a store under the combined key
// (foreign key, primary key); SubscriptionJoinProcessorSupplier answers a subscription with the
// right row it names; ForeignTableJoinProcessorSupplier answers every subscriber of a right row
// when that row changes (a prefix scan of the store).
import type { TypedKeyValueStore } from '@kstreams/state-store';
import { StreamsError } from '../../errors.ts';
import type { Processor, ProcessorContext } from '../../processor/processor.ts';
import type { Record } from '../../processor/record.ts';
import type { Serde } from '../../serdes/serde.ts';
import { timestampedView, type ValueAndTimestamp } from '../../state/value-and-timestamp.ts';
import { Change } from './change.ts';
import { droppedRecord } from './dropped-records.ts';
import { operatorSerde, pseudoTopic } from './fk-serdes.ts';
import {
  combinedKey,
  combinedKeyPrefix,
  Instruction,
  prefixUpperBound,
  primaryKeyOf,
  RESPONSE_VERSION,
  SUBSCRIPTION_VERSION,
  type SubscriptionResponseWrapper,
  type SubscriptionWrapper,
} from './fk-wire-format.ts';
import type { KTableValueGetter, KTableValueGetterSupplier } from './ktable-value-getter.ts';

type Ctx = ProcessorContext<unknown, unknown>;
type SubscriptionStore = TypedKeyValueStore<Buffer, ValueAndTimestamp<SubscriptionWrapper>>;

/** What the receiver forwards to the subscription join: both keys of a subscription. */
export interface CombinedKey {
  readonly foreignKey: unknown;
  readonly primaryKey: Buffer;
}

function subscriptionStore(context: Ctx, storeName: string): SubscriptionStore {
  return timestampedView(context.getStateStore<TypedKeyValueStore<Buffer, SubscriptionWrapper>>(storeName));
}

function requireKnownVersion(wrapper: SubscriptionWrapper, topic: string): void {
  if (wrapper.version > SUBSCRIPTION_VERSION) {
    throw new StreamsError(
      `Foreign-key join subscription of version ${wrapper.version} on ${topic}; this version reads ` +
        `versions up to ${SUBSCRIPTION_VERSION}`,
    );
  }
}

export interface SubscriptionReceiveOptions {
  readonly storeName: string;
  readonly foreignKeySerde: Serde<unknown> | undefined;
  readonly registrationTopic: string;
}

/** Kafka Streams' SubscriptionReceiveProcessorSupplier. */
export class SubscriptionReceiveProcessor
  implements Processor<unknown, SubscriptionWrapper, unknown, unknown>
{
  private ctx!: Ctx;
  private store!: SubscriptionStore;
  private fkSerde!: Serde<unknown>;
  private fkTopic!: string;

  constructor(private readonly options: SubscriptionReceiveOptions) {}

  init(context: Ctx): void {
    this.ctx = context;
    this.store = subscriptionStore(context, this.options.storeName);
    const topic = pseudoTopic(context.applicationId, this.options.registrationTopic);
    this.fkSerde = operatorSerde(
      context,
      this.options.foreignKeySerde,
      'key',
      `the foreign keys of the foreign-key join's subscriptions (${this.options.registrationTopic})`,
    );
    this.fkTopic = `${topic}-fk`;
  }

  process(record: Record<unknown, SubscriptionWrapper>): void {
    const wrapper = record.value;
    const foreignKey = record.key ?? null;
    // A null foreign key comes only from a left join's deleted or key-less row: it subscribes to
    // nothing, but its response must still come back.
    if (foreignKey === null && wrapper.instruction !== Instruction.PROPAGATE_NULL_IF_NO_FK_VAL_AVAILABLE) {
      droppedRecord(this.ctx, 'null foreign key');
      return;
    }
    requireKnownVersion(wrapper, this.options.registrationTopic);
    const newValue = { value: wrapper, timestamp: record.timestamp };
    let oldValue: ValueAndTimestamp<SubscriptionWrapper> | null = null;
    if (foreignKey !== null) {
      const key = combinedKey(this.fkSerde.serialize(foreignKey, this.fkTopic), wrapper.primaryKey);
      oldValue = this.store.get(key) ?? null;
      const unsubscribe =
        wrapper.instruction === Instruction.DELETE_KEY_AND_PROPAGATE ||
        wrapper.instruction === Instruction.DELETE_KEY_NO_PROPAGATE;
      if (unsubscribe) this.store.delete(key);
      else this.store.put(key, newValue);
    }
    const keys: CombinedKey = { foreignKey, primaryKey: wrapper.primaryKey };
    this.ctx.forward(record.withKey(keys).withValue(new Change(newValue, oldValue)));
  }
}

function response(
  subscription: SubscriptionWrapper,
  foreignValue: Buffer | null,
): SubscriptionResponseWrapper {
  return {
    version: RESPONSE_VERSION,
    hash: subscription.hash,
    foreignValue,
    primaryPartition: subscription.primaryPartition,
  };
}

export interface SubscriptionJoinOptions {
  readonly rightGetter: KTableValueGetterSupplier;
  readonly foreignValueSerde: Serde<unknown> | undefined;
  readonly responseTopic: string;
}

/**
 * Kafka Streams' SubscriptionJoinProcessorSupplier: answers a subscription as its instruction
 * says; the response's timestamp is the later of the subscription's and the right row's.
 */
export class SubscriptionJoinProcessor
  implements Processor<CombinedKey, Change<ValueAndTimestamp<SubscriptionWrapper>>, unknown, unknown>
{
  private ctx!: Ctx;
  private right!: KTableValueGetter;
  private valueSerde!: Serde<unknown>;
  private topic!: string;

  constructor(private readonly options: SubscriptionJoinOptions) {}

  init(context: Ctx): void {
    this.ctx = context;
    this.right = this.options.rightGetter.get(context);
    this.topic = pseudoTopic(context.applicationId, this.options.responseTopic);
    this.valueSerde = operatorSerde(
      context,
      this.options.foreignValueSerde,
      'value',
      `the right values of the foreign-key join's responses (${this.options.responseTopic})`,
    );
  }

  process(record: Record<CombinedKey, Change<ValueAndTimestamp<SubscriptionWrapper>>>): void {
    const subscribed = record.value.newValue!;
    const subscription = subscribed.value;
    const { foreignKey, primaryKey } = record.key;
    const found = foreignKey === null ? undefined : this.right(foreignKey);
    const timestamp =
      found === undefined ? subscribed.timestamp : Math.max(subscribed.timestamp, found.timestamp);
    const foreignValue = found === undefined ? null : this.valueSerde.serialize(found.value, this.topic);
    const send = (value: Buffer | null): void =>
      this.ctx.forward(
        record.withKey(primaryKey).withValue(response(subscription, value)).withTimestamp(timestamp),
      );
    switch (subscription.instruction) {
      case Instruction.DELETE_KEY_AND_PROPAGATE:
        send(null);
        break;
      case Instruction.PROPAGATE_NULL_IF_NO_FK_VAL_AVAILABLE:
        send(foreignValue);
        break;
      case Instruction.PROPAGATE_ONLY_IF_FK_VAL_AVAILABLE:
        if (foreignValue !== null) send(foreignValue);
        break;
      case Instruction.DELETE_KEY_NO_PROPAGATE:
        break;
    }
  }
}

export interface ForeignTableJoinOptions {
  readonly storeName: string;
  readonly foreignKeySerde: Serde<unknown> | undefined;
  readonly foreignValueSerde: Serde<unknown> | undefined;
  readonly registrationTopic: string;
  readonly responseTopic: string;
}

/**
 * Kafka Streams' ForeignTableJoinProcessorSupplier: a change of a right row answers every
 * subscription to its key, with the right record's timestamp.
 */
export class ForeignTableJoinProcessor implements Processor<unknown, Change<unknown>, unknown, unknown> {
  private ctx!: Ctx;
  private store!: SubscriptionStore;
  private fkSerde!: Serde<unknown>;
  private valueSerde!: Serde<unknown>;
  private fkTopic!: string;
  private topic!: string;

  constructor(private readonly options: ForeignTableJoinOptions) {}

  init(context: Ctx): void {
    this.ctx = context;
    const { options } = this;
    this.store = subscriptionStore(context, options.storeName);
    this.fkTopic = `${pseudoTopic(context.applicationId, options.registrationTopic)}-fk`;
    this.topic = pseudoTopic(context.applicationId, options.responseTopic);
    const where = `the foreign-key join's responses (${options.responseTopic})`;
    this.fkSerde = operatorSerde(context, options.foreignKeySerde, 'key', `the foreign keys of ${where}`);
    this.valueSerde = operatorSerde(
      context,
      options.foreignValueSerde,
      'value',
      `the right values of ${where}`,
    );
  }

  async process(record: Record<unknown, Change<unknown>>): Promise<void> {
    if (record.key === null || record.key === undefined) {
      droppedRecord(this.ctx, 'null key');
      return;
    }
    const prefix = combinedKeyPrefix(this.fkSerde.serialize(record.key, this.fkTopic));
    const subscribers: Array<{ key: Buffer; value: ValueAndTimestamp<SubscriptionWrapper> }> = [];
    for await (const entry of this.store.range(prefix, prefixUpperBound(prefix))) {
      // The upper bound is inclusive: it may hold a key of the next foreign key.
      if (entry.key.subarray(0, prefix.length).equals(prefix)) subscribers.push(entry);
    }
    if (subscribers.length === 0) return;
    const newValue = record.value.newValue ?? null;
    const foreignValue = newValue === null ? null : this.valueSerde.serialize(newValue, this.topic);
    for (const { key, value } of subscribers) {
      this.ctx.forward(
        record.withKey(Buffer.from(primaryKeyOf(key))).withValue(response(value.value, foreignValue)),
      );
    }
  }
}

// The left (primary) side of the foreign-key join (KIP-213), with Kafka Streams 4.4's semantics:
// SubscriptionSendProcessorSupplier turns each change of the left table into subscriptions keyed
// by foreign key, and ResponseJoinProcessorSupplier joins the responses that come back, dropping
// any response whose hash of the left value is no longer the current one (a stale response).

import { StreamsError } from '../../errors.ts';
import type { Processor, ProcessorContext } from '../../processor/processor.ts';
import type { Record } from '../../processor/record.ts';
import type { Serde } from '../../serdes/serde.ts';
import type { Change } from './change.ts';
import { droppedRecord } from './dropped-records.ts';
import { operatorSerde, pseudoTopic } from './fk-serdes.ts';
import {
  Instruction,
  RESPONSE_VERSION,
  SUBSCRIPTION_VERSION,
  type SubscriptionResponseWrapper,
  type SubscriptionWrapper,
} from './fk-wire-format.ts';
import type { KTableValueGetter, KTableValueGetterSupplier } from './ktable-value-getter.ts';
import { murmur3Hash128 } from './murmur3.ts';
import type { ValueJoinerWithKey } from './value-joiner.ts';

type Ctx = ProcessorContext<unknown, unknown>;

function isAbsent(value: unknown): value is null | undefined {
  return value === null || value === undefined;
}

export type ForeignKeyExtractor = (key: unknown, value: unknown) => unknown;

export interface SubscriptionSendOptions {
  readonly extractor: ForeignKeyExtractor;
  readonly leftJoin: boolean;
  /** The right table's key serde (the foreign keys), the left table's key and value serdes. */
  readonly foreignKeySerde: Serde<unknown> | undefined;
  readonly primaryKeySerde: Serde<unknown> | undefined;
  readonly valueSerde: Serde<unknown> | undefined;
  /** The registration topic's name without the application id (pseudo topics derive from it). */
  readonly registrationTopic: string;
}

/** Kafka Streams' SubscriptionSendProcessorSupplier: one or two subscriptions per left change. */
export class SubscriptionSendProcessor implements Processor<unknown, Change<unknown>, unknown, unknown> {
  private ctx!: Ctx;
  private fkSerde!: Serde<unknown>;
  private pkSerde!: Serde<unknown>;
  private valueSerde!: Serde<unknown>;
  private fkTopic!: string;
  private pkTopic!: string;
  private valueTopic!: string;

  constructor(private readonly options: SubscriptionSendOptions) {}

  init(context: Ctx): void {
    this.ctx = context;
    const { options } = this;
    const where = `the foreign-key join's subscriptions (${options.registrationTopic})`;
    this.fkSerde = operatorSerde(context, options.foreignKeySerde, 'key', `the foreign keys of ${where}`);
    this.pkSerde = operatorSerde(context, options.primaryKeySerde, 'key', `the primary keys of ${where}`);
    this.valueSerde = operatorSerde(context, options.valueSerde, 'value', `the left values of ${where}`);
    const topic = pseudoTopic(context.applicationId, options.registrationTopic);
    this.fkTopic = `${topic}-fk`;
    this.pkTopic = `${topic}-pk`;
    this.valueTopic = `${topic}-vh`;
  }

  process(record: Record<unknown, Change<unknown>>): void {
    if (isAbsent(record.key)) {
      droppedRecord(this.ctx, 'null key');
      return;
    }
    const newValue = record.value.newValue ?? null;
    const oldValue = record.value.oldValue ?? null;
    const { extractor } = this.options;
    const oldFk = oldValue === null ? null : (extractor(record.key, oldValue) ?? null);
    const send = this.sender(record, newValue);
    if (this.options.leftJoin) {
      // An idempotent delete of an absent row says nothing.
      if (oldValue === null && newValue === null) return;
      const newFk = newValue === null ? null : (extractor(record.key, newValue) ?? null);
      if (oldFk !== null && this.changed(newFk, oldFk)) send(oldFk, Instruction.DELETE_KEY_NO_PROPAGATE);
      // Every change gets a response, so that there is always a left-join result; a deleted row
      // sends a null foreign key, which subscribes nowhere but still comes back.
      send(newFk, Instruction.PROPAGATE_NULL_IF_NO_FK_VAL_AVAILABLE);
      return;
    }
    if (newValue === null) {
      if (oldFk !== null) send(oldFk, Instruction.DELETE_KEY_AND_PROPAGATE);
      return;
    }
    const newFk = extractor(record.key, newValue) ?? null;
    if (newFk === null) {
      droppedRecord(this.ctx, 'null foreign key');
      if (oldFk !== null) send(oldFk, Instruction.DELETE_KEY_AND_PROPAGATE);
      return;
    }
    if (oldFk !== null && this.changed(newFk, oldFk)) {
      // The new subscription may land on another partition: unsubscribe explicitly, and make the
      // new one answer even without a match so that the old result is retracted.
      send(oldFk, Instruction.DELETE_KEY_NO_PROPAGATE);
      send(newFk, Instruction.PROPAGATE_NULL_IF_NO_FK_VAL_AVAILABLE);
    } else {
      send(newFk, Instruction.PROPAGATE_ONLY_IF_FK_VAL_AVAILABLE);
    }
  }

  /** Foreign keys compare by their bytes, as in Kafka Streams. */
  private changed(newFk: unknown, oldFk: unknown): boolean {
    if (newFk === null) return true;
    const a = this.fkSerde.serialize(newFk, this.fkTopic);
    return !a.equals(this.fkSerde.serialize(oldFk, this.fkTopic));
  }

  private sender(record: Record<unknown, Change<unknown>>, newValue: unknown) {
    let hash: Buffer | null | undefined;
    let primaryKey: Buffer | undefined;
    return (foreignKey: unknown, instruction: Instruction): void => {
      hash ??=
        newValue === null ? null : murmur3Hash128(this.valueSerde.serialize(newValue, this.valueTopic));
      primaryKey ??= this.pkSerde.serialize(record.key, this.pkTopic);
      const wrapper: SubscriptionWrapper = {
        version: SUBSCRIPTION_VERSION,
        hash,
        instruction,
        primaryKey,
        primaryPartition: this.ctx.recordMetadata()?.partition ?? this.ctx.taskId.partition,
      };
      this.ctx.forward(record.withKey(foreignKey).withValue(wrapper));
    };
  }
}

export interface ResponseJoinOptions {
  readonly leftGetter: KTableValueGetterSupplier;
  readonly valueSerde: Serde<unknown> | undefined;
  readonly foreignValueSerde: Serde<unknown> | undefined;
  readonly joiner: ValueJoinerWithKey<unknown, unknown, unknown, unknown>;
  readonly leftJoin: boolean;
  readonly registrationTopic: string;
  readonly responseTopic: string;
}

/** Kafka Streams' ResponseJoinProcessorSupplier: the join result, or a tombstone, per fresh response. */
export class ResponseJoinProcessor
  implements Processor<unknown, SubscriptionResponseWrapper, unknown, unknown>
{
  private ctx!: Ctx;
  private left!: KTableValueGetter;
  private valueSerde!: Serde<unknown>;
  private foreignValueSerde!: Serde<unknown>;
  private valueTopic!: string;
  private responseTopic!: string;

  constructor(private readonly options: ResponseJoinOptions) {}

  init(context: Ctx): void {
    this.ctx = context;
    const { options } = this;
    this.left = options.leftGetter.get(context);
    const where = `the foreign-key join's responses (${options.responseTopic})`;
    this.valueSerde = operatorSerde(context, options.valueSerde, 'value', `the left values of ${where}`);
    this.foreignValueSerde = operatorSerde(
      context,
      options.foreignValueSerde,
      'value',
      `the right values of ${where}`,
    );
    this.valueTopic = `${pseudoTopic(context.applicationId, options.registrationTopic)}-vh`;
    this.responseTopic = pseudoTopic(context.applicationId, options.responseTopic);
  }

  process(record: Record<unknown, SubscriptionResponseWrapper>): void {
    const response = record.value;
    if (response.version !== RESPONSE_VERSION) {
      throw new StreamsError(
        `Foreign-key join response of version ${response.version} on ${this.responseTopic}; this version ` +
          `reads version ${RESPONSE_VERSION} only`,
      );
    }
    const current = this.left(record.key);
    const currentHash =
      current === undefined
        ? null
        : murmur3Hash128(this.valueSerde.serialize(current.value, this.valueTopic));
    const fresh =
      response.hash === null || currentHash === null
        ? response.hash === currentHash
        : response.hash.equals(currentHash);
    if (!fresh) {
      droppedRecord(this.ctx, 'stale foreign-key join response (left value changed since)');
      return;
    }
    const foreign =
      response.foreignValue === null
        ? null
        : this.foreignValueSerde.deserialize(response.foreignValue, this.responseTopic);
    const result =
      response.foreignValue === null && (!this.options.leftJoin || current === undefined)
        ? null
        : this.options.joiner(record.key, current?.value ?? null, foreign);
    this.ctx.forward(record.withValue(result));
  }
}

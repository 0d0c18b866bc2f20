// The byte formats of the foreign-key join (KIP-213), as Kafka Streams 4.4 writes them, so that a
// Java tool (or a Java instance during a port) reads our subscription and response topics:
//   subscription: {1 bit hash-is-null}{7 bits version}{instruction}{16-byte hash?}{primary key}{partition}
//   response:     {1 bit hash-is-null}{7 bits version}{16-byte hash?}{foreign value?}
//   combined key: {4-byte foreign key length}{foreign key}{primary key}
// Keys and values inside are carried as their serialized bytes: the operators serialize with the
// tables' serdes themselves, so these formats need no serde of their own.
import { SerdeError } from '../../errors.ts';
import type { Serde } from '../../serdes/serde.ts';

/** What the right side does with a subscription (Kafka Streams' SubscriptionWrapper.Instruction). */
export const Instruction = {
  /** Remove the subscription; send nothing (the left row subscribes elsewhere). */
  DELETE_KEY_NO_PROPAGATE: 0,
  /** Remove the subscription; send a response with no value (the result becomes a tombstone). */
  DELETE_KEY_AND_PROPAGATE: 1,
  /** Subscribe; respond with the right value, or with none so that an earlier result is retracted. */
  PROPAGATE_NULL_IF_NO_FK_VAL_AVAILABLE: 2,
  /** Subscribe; respond only if the right side has a row (first subscription of an inner join). */
  PROPAGATE_ONLY_IF_FK_VAL_AVAILABLE: 3,
} as const;
export type Instruction = (typeof Instruction)[keyof typeof Instruction];

const INSTRUCTION_NAMES = Object.keys(Instruction);

/** Version 1 added the primary partition; Kafka Streams 4.4 writes 1 and reads 0 and 1. */
export const SUBSCRIPTION_VERSION = 1;
export const RESPONSE_VERSION = 0;
const HASH_BYTES = 16;
const HASH_IS_NULL = 0x80;

export interface SubscriptionWrapper {
  readonly version: number;
  /** murmur3 128 of the left value's bytes; null when the left row was deleted. */
  readonly hash: Buffer | null;
  readonly instruction: Instruction;
  /** The left key, serialized with the left table's key serde. */
  readonly primaryKey: Buffer;
  /** The left record's partition, where the response goes (undefined in version 0). */
  readonly primaryPartition: number | undefined;
}

export interface SubscriptionResponseWrapper {
  readonly version: number;
  /** The hash the subscription carried: the resolver drops the response unless it still matches. */
  readonly hash: Buffer | null;
  /** The right value, serialized with the right table's value serde; null: no right row. */
  readonly foreignValue: Buffer | null;
  /** Not serialized: picks the response topic's partition at the sink. */
  readonly primaryPartition?: number | undefined;
}

function versionByte(version: number, hash: Buffer | null): number {
  if (!Number.isInteger(version) || version < 0 || version > 0x7f) {
    throw new SerdeError(`Foreign-key join wrapper version ${version} is out of range 0..127`);
  }
  return hash === null ? version | HASH_IS_NULL : version;
}

function requireHash(hash: Buffer | null): void {
  if (hash !== null && hash.length !== HASH_BYTES) {
    throw new SerdeError(`A foreign-key join hash has ${HASH_BYTES} bytes, got ${hash.length}`);
  }
}

export const subscriptionWrapperSerde: Serde<SubscriptionWrapper> = {
  serialize(data) {
    requireHash(data.hash);
    const withPartition = data.version > 0;
    if (withPartition && data.primaryPartition === undefined) {
      throw new SerdeError(`A version ${data.version} subscription needs its primary partition`);
    }
    const size = 2 + (data.hash?.length ?? 0) + data.primaryKey.length + (withPartition ? 4 : 0);
    const out = Buffer.allocUnsafe(size);
    out[0] = versionByte(data.version, data.hash);
    out[1] = data.instruction;
    let at = 2;
    if (data.hash !== null) at += data.hash.copy(out, at);
    at += data.primaryKey.copy(out, at);
    if (withPartition) out.writeInt32BE(data.primaryPartition!, at);
    return out;
  },
  deserialize(data) {
    if (data.length < 2) throw new SerdeError(`A subscription has at least 2 bytes, got ${data.length}`);
    const version = data[0]! & 0x7f;
    const instruction = data[1]!;
    if (instruction >= INSTRUCTION_NAMES.length) {
      throw new SerdeError(`Unknown foreign-key join instruction byte ${instruction}`);
    }
    let at = 2;
    let hash: Buffer | null = null;
    if ((data[0]! & HASH_IS_NULL) === 0) {
      hash = Buffer.from(data.subarray(at, at + HASH_BYTES));
      at += HASH_BYTES;
    }
    const end = version > 0 ? data.length - 4 : data.length;
    if (end < at)
      throw new SerdeError(`A version ${version} subscription of ${data.length} bytes is truncated`);
    return {
      version,
      hash,
      instruction: instruction as Instruction,
      primaryKey: Buffer.from(data.subarray(at, end)),
      primaryPartition: version > 0 ? data.readInt32BE(end) : undefined,
    };
  },
};

export const subscriptionResponseWrapperSerde: Serde<SubscriptionResponseWrapper> = {
  serialize(data) {
    requireHash(data.hash);
    const value = data.foreignValue;
    const out = Buffer.allocUnsafe(1 + (data.hash?.length ?? 0) + (value?.length ?? 0));
    out[0] = versionByte(data.version, data.hash);
    let at = 1;
    if (data.hash !== null) at += data.hash.copy(out, at);
    if (value !== null) value.copy(out, at);
    return out;
  },
  deserialize(data) {
    if (data.length < 1) throw new SerdeError('A subscription response has at least 1 byte, got 0');
    let at = 1;
    let hash: Buffer | null = null;
    if ((data[0]! & HASH_IS_NULL) === 0) {
      if (data.length < 1 + HASH_BYTES) throw new SerdeError('A subscription response is truncated');
      hash = Buffer.from(data.subarray(at, at + HASH_BYTES));
      at += HASH_BYTES;
    }
    // As in Java, an empty value reads back as none.
    const foreignValue = data.length > at ? Buffer.from(data.subarray(at)) : null;
    return { version: data[0]! & 0x7f, hash, foreignValue };
  },
};

/** The subscription store's key: all subscriptions of a foreign key sort together. */
export function combinedKey(foreignKey: Buffer, primaryKey: Buffer): Buffer {
  const out = Buffer.allocUnsafe(4 + foreignKey.length + primaryKey.length);
  out.writeInt32BE(foreignKey.length, 0);
  foreignKey.copy(out, 4);
  primaryKey.copy(out, 4 + foreignKey.length);
  return out;
}

/** The prefix every combined key of `foreignKey` starts with. */
export function combinedKeyPrefix(foreignKey: Buffer): Buffer {
  return combinedKey(foreignKey, Buffer.alloc(0));
}

/** The primary key inside a combined key. */
export function primaryKeyOf(combined: Buffer): Buffer {
  return combined.subarray(4 + combined.readInt32BE(0));
}

/** The smallest key above every key starting with `prefix` (undefined: none, all bytes are 0xff). */
export function prefixUpperBound(prefix: Buffer): Buffer | undefined {
  const bound = Buffer.from(prefix);
  for (let i = bound.length - 1; i >= 0; i--) {
    if (bound[i]! < 0xff) {
      bound[i] = bound[i]! + 1;
      return bound.subarray(0, i + 1);
    }
  }
  return undefined;
}

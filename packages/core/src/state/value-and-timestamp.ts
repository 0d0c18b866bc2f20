import {
  readLong,
  type StoreSerde,
  splitValueTimestampHeaders,
  type TypedKeyValueStore,
  writeLong,
} from '@kstreams/state-store';
import type { Serde } from '../serdes/serde.ts';
import {
  plainValueOfHeadersBytes,
  type ValueTimestampHeaders,
  valueTimestampHeadersSerde,
  withEmptyHeaders,
} from './value-timestamp-headers.ts';
import type { TypedWindowStore } from './window-store.ts';

/** A stored value and the timestamp of the record it stands for (Kafka Streams' ValueAndTimestamp). */
export interface ValueAndTimestamp<V> {
  readonly value: V;
  readonly timestamp: number;
}

/** Kafka's "no timestamp" (ConsumerRecord.NO_TIMESTAMP), for values written without one. */
export const NO_TIMESTAMP = -1;

const TIMESTAMP_BYTES = 8;

/** A timestamped store's bytes: the timestamp, then the value's bytes. */
export function withTimestamp(timestamp: number, valueBytes: Buffer): Buffer {
  const bytes = Buffer.allocUnsafe(TIMESTAMP_BYTES + valueBytes.length);
  writeLong(bytes, timestamp, 0);
  valueBytes.copy(bytes, TIMESTAMP_BYTES);
  return bytes;
}

export function timestampOf(bytes: Buffer): number {
  return readLong(bytes, 0);
}

/** The plain value's bytes inside a timestamped store's bytes (a view, not a copy). */
export function rawValueOf(bytes: Buffer): Buffer {
  return bytes.subarray(TIMESTAMP_BYTES);
}

/**
 * The bytes of a timestamped store: an 8-byte big-endian timestamp, then the value's bytes (the
 * layout of Kafka Streams' timestamped stores).
 */
export function valueAndTimestampSerde<V>(valueSerde: StoreSerde<V>): StoreSerde<ValueAndTimestamp<V>> {
  return {
    serialize: (data) => withTimestamp(data.timestamp, valueSerde.serialize(data.value)),
    deserialize: (data) => ({
      value: valueSerde.deserialize(data.subarray(TIMESTAMP_BYTES)),
      timestamp: timestampOf(data),
    }),
  };
}

/**
 * Reads the values of a timestamped store and leaves out the timestamps: what a timestamped store's
 * builder hands to readers that want the values only (interactive queries, the test driver's
 * getKeyValueStore), as Kafka Streams' key-value facade over a timestamped store does. Values
 * written through it get NO_TIMESTAMP. `withHeaders`: the store is headers-aware (Kafka Streams'
 * ValueTimestampHeaders bytes, dslStoreFormat 'HEADERS'); its headers are left out too.
 */
export class TimestampSkippingSerde<V> implements Serde<V> {
  constructor(
    readonly valueSerde: Serde<V>,
    readonly withHeaders = false,
  ) {}

  /** The same wrapper (same format) around another serde of the plain values. */
  around(valueSerde: Serde<V>): TimestampSkippingSerde<V> {
    return new TimestampSkippingSerde(valueSerde, this.withHeaders);
  }

  serialize(data: V, topic?: string): Buffer {
    const bytes = this.valueSerde.serialize(data, topic);
    return this.withHeaders ? withEmptyHeaders(NO_TIMESTAMP, bytes) : withTimestamp(NO_TIMESTAMP, bytes);
  }

  deserialize(data: Buffer, topic?: string): V {
    const bytes = this.withHeaders ? plainValueOfHeadersBytes(data) : data.subarray(TIMESTAMP_BYTES);
    return this.valueSerde.deserialize(bytes, topic);
  }
}

/**
 * What a timestamped store's view reads its bytes with: the plain values, whether the task resolved
 * the builder's serde (already skipping) or the config's default (plain).
 */
export function timestampSkipping<V>(serde: StoreSerde<V>, withHeaders = false): StoreSerde<V> {
  return serde instanceof TimestampSkippingSerde
    ? serde
    : new TimestampSkippingSerde(serde as Serde<V>, withHeaders);
}

/**
 * A headers-aware store's values with their timestamps, as the DSL's operators read and write
 * them: Kafka Streams 4.4's operators store empty headers (KeyValueStoreWrapper.put), so the
 * headers are not read either.
 */
function valueAndTimestampOverHeaders<V>(valueSerde: StoreSerde<V>): StoreSerde<ValueAndTimestamp<V>> {
  return {
    serialize: (data) => withEmptyHeaders(data.timestamp, valueSerde.serialize(data.value)),
    deserialize: (bytes) => {
      const { value, timestamp } = splitValueTimestampHeaders(bytes);
      return { value: valueSerde.deserialize(value), timestamp };
    },
  };
}

/** The serde of the plain values inside a timestamped store, whichever of the two the task holds. */
function innerSerde<V>(serde: StoreSerde<V>): StoreSerde<V> {
  return serde instanceof TimestampSkippingSerde ? (serde.valueSerde as StoreSerde<V>) : serde;
}

/**
 * A timestamped store seen with its timestamps. The task holds the store with the builder's value
 * serde, or with the default serde of the config when the builder has none; both lead here.
 */
export function timestampedView<K, V>(
  store: TypedKeyValueStore<K, V>,
): TypedKeyValueStore<K, ValueAndTimestamp<V>> {
  return store.withValueSerde((serde) =>
    serde instanceof TimestampSkippingSerde && serde.withHeaders
      ? valueAndTimestampOverHeaders(serde.valueSerde as StoreSerde<V>)
      : valueAndTimestampSerde(innerSerde(serde)),
  );
}

/** A timestamped window store (a windowed aggregation's) seen with its timestamps. */
export function timestampedWindowView<K, V>(
  store: TypedWindowStore<K, V>,
): TypedWindowStore<K, ValueAndTimestamp<V>> {
  return store.withValueSerde((serde) =>
    serde instanceof TimestampSkippingSerde && serde.withHeaders
      ? valueAndTimestampOverHeaders(serde.valueSerde as StoreSerde<V>)
      : valueAndTimestampSerde(innerSerde(serde)),
  );
}

/**
 * A headers-aware window store (a stream-stream join's with dslStoreFormat 'HEADERS') seen with
 * each value's timestamp and headers; undefined when the store is not headers-aware.
 */
export function headersWindowView<K, V>(
  store: TypedWindowStore<K, V>,
): TypedWindowStore<K, ValueTimestampHeaders<V>> | undefined {
  let headers = false;
  const view = store.withValueSerde((serde) => {
    if (!(serde instanceof TimestampSkippingSerde && serde.withHeaders)) return serde as never;
    headers = true;
    return valueTimestampHeadersSerde(serde.valueSerde as StoreSerde<V>);
  });
  return headers ? view : undefined;
}

import {
  defaultVersionedSegmentIntervalMs,
  encodeRestoreValue,
  InMemoryKeyValueStore,
  type KeyValueBytesStore,
  type StoreSerde,
  type TransactionalBuffer,
  TypedVersionedKeyValueStore,
} from '@kstreams/state-store';
import { TopologyError } from '../errors.ts';
import type { Serde } from '../serdes/serde.ts';
import type { BytesStoreFactory } from './bytes-stores.ts';
import type { StateStore } from './state-store.ts';
import type { StoreBuilder } from './store-builder.ts';

/**
 * Kafka Streams' VersionedBytesStoreSupplier: a versioned store's name, history retention and
 * segment interval, and whether it lives in LevelDB (`persistentVersionedKeyValueStore`) or in
 * memory. Pass it to `Materialized.as` or `Stores.versionedKeyValueStoreBuilder`.
 */
export interface VersionedBytesStoreSupplier {
  readonly name: string;
  readonly historyRetentionMs: number;
  readonly segmentIntervalMs: number;
  readonly persistent: boolean;
}

function supplier(
  name: string,
  historyRetentionMs: number,
  segmentIntervalMs: number | undefined,
  persistent: boolean,
): VersionedBytesStoreSupplier {
  if (typeof name !== 'string' || name.length === 0) {
    throw new TopologyError('A versioned store needs a name: pass a non-empty string.');
  }
  if (!Number.isSafeInteger(historyRetentionMs) || historyRetentionMs < 0) {
    throw new TopologyError(
      `Versioned store '${name}': historyRetentionMs must be a non-negative integer (ms), got ${historyRetentionMs}.`,
    );
  }
  const interval = segmentIntervalMs ?? defaultVersionedSegmentIntervalMs(historyRetentionMs);
  if (!Number.isSafeInteger(interval) || interval < 1) {
    throw new TopologyError(
      `Versioned store '${name}': segmentIntervalMs must be a positive integer (ms), got ${interval}.`,
    );
  }
  return { name, historyRetentionMs, segmentIntervalMs: interval, persistent };
}

/** Kafka Streams' Stores.persistentVersionedKeyValueStore: a LevelDB versioned store. */
export function persistentVersionedKeyValueStore(
  name: string,
  historyRetentionMs: number,
  segmentIntervalMs?: number,
): VersionedBytesStoreSupplier {
  return supplier(name, historyRetentionMs, segmentIntervalMs, true);
}

/** An in-memory versioned store (Kafka Streams 4.4 has only the persistent one): same semantics. */
export function inMemoryVersionedKeyValueStore(
  name: string,
  historyRetentionMs: number,
): VersionedBytesStoreSupplier {
  return supplier(name, historyRetentionMs, undefined, false);
}

/**
 * A versioned store's builder (Kafka Streams' VersionedKeyValueStoreBuilder): the store processors
 * get is a VersionedKeyValueStore over the task's buffer; its changelog carries every put with its
 * timestamp, and is compacted only after the history retention plus a day
 * (`min.compaction.lag.ms`, as Kafka Streams configures it).
 */
export class VersionedKeyValueStoreBuilder<K, V> implements StoreBuilder<K, V> {
  readonly type = 'versioned' as const;
  readonly name: string;

  constructor(
    readonly supplier: VersionedBytesStoreSupplier,
    readonly keySerde: Serde<K> | undefined,
    readonly valueSerde: Serde<V> | undefined,
    readonly loggingEnabled: boolean,
  ) {
    this.name = supplier.name;
  }

  get versioned(): { historyRetentionMs: number; segmentIntervalMs: number } {
    return this.supplier;
  }

  withLoggingEnabled(): StoreBuilder<K, V> {
    return new VersionedKeyValueStoreBuilder(this.supplier, this.keySerde, this.valueSerde, true);
  }

  withLoggingDisabled(): StoreBuilder<K, V> {
    return new VersionedKeyValueStoreBuilder(this.supplier, this.keySerde, this.valueSerde, false);
  }

  bytesStore(stores: BytesStoreFactory): KeyValueBytesStore {
    return this.supplier.persistent ? stores.keyValue(this.name) : new InMemoryKeyValueStore(this.name);
  }

  build(buffer: TransactionalBuffer, keySerde: StoreSerde<K>, valueSerde: StoreSerde<V>): StateStore {
    return new TypedVersionedKeyValueStore(buffer, this.storeOptions(), keySerde, valueSerde);
  }

  storeOptions(): { name: string; historyRetentionMs: number; segmentIntervalMs: number } {
    const { name, historyRetentionMs, segmentIntervalMs } = this.supplier;
    return { name, historyRetentionMs, segmentIntervalMs };
  }
}

/** Kafka Streams' Stores.versionedKeyValueStoreBuilder, for Processor API topologies. */
export function versionedKeyValueStoreBuilder<K, V>(
  supplier: VersionedBytesStoreSupplier,
  keySerde?: Serde<K>,
  valueSerde?: Serde<V>,
): StoreBuilder<K, V> {
  return new VersionedKeyValueStoreBuilder(supplier, keySerde, valueSerde, true);
}

export function isVersionedBuilder(
  builder: StoreBuilder | undefined,
): builder is VersionedKeyValueStoreBuilder<unknown, unknown> {
  return builder instanceof VersionedKeyValueStoreBuilder;
}

/**
 * A versioned store's changelog record as its restore target takes it: the record's timestamp and
 * tombstone flag go into the value, since the restore carries keys and values only.
 */
export function versionedRestoreValue<
  M extends { key: Buffer | null; value: Buffer | null; timestamp: number },
>(message: M): M {
  return { ...message, value: encodeRestoreValue(message.timestamp, message.value) };
}

import { InvalidStoreArgumentError } from '../errors.ts';
import type { StoreSerde } from '../typed/typed-key-value-store.ts';
import type { KeyValueBytesStore } from '../types.ts';
import {
  type VersionedBackend,
  type VersionedBytesRecord,
  VersionedBytesStore,
  type VersionedChange,
  type VersionedStoreOptions,
} from './versioned-bytes-store.ts';

/** Kafka Streams' VersionedRecord: a value, the timestamp it was put with, and until when it held. */
export interface VersionedRecord<V> {
  readonly value: V;
  readonly timestamp: number;
  /** Undefined for the latest version (Kafka Streams' empty `validTo()`). */
  readonly validTo: number | undefined;
}

/** Kafka Streams' VersionedKeyValueStore, as processors use it (KIP-889). */
export interface VersionedKeyValueStore<K, V> {
  readonly name: string;
  readonly historyRetentionMs: number;
  /** PUT_RETURN_CODE_VALID_TO_UNDEFINED, PUT_RETURN_CODE_NOT_PUT, or the new version's validTo. */
  put(key: K, value: V | null, timestamp: number): number;
  delete(key: K, timestamp: number): VersionedRecord<V> | null;
  get(key: K): VersionedRecord<V> | null;
  get(key: K, asOfTimestamp: number): VersionedRecord<V> | null;
}

/**
 * Serdes over a VersionedBytesStore; a null key is rejected and `put(key, null, ts)` is a delete,
 * as in Kafka Streams. Also what the task's state manager asks for the changelog and cleanup.
 */
export class TypedVersionedKeyValueStore<K, V> implements VersionedKeyValueStore<K, V> {
  readonly name: string;
  readonly historyRetentionMs: number;
  readonly bytes: VersionedBytesStore;

  constructor(
    backend: VersionedBackend,
    options: VersionedStoreOptions,
    private readonly keySerde: StoreSerde<K>,
    private readonly valueSerde: StoreSerde<V>,
  ) {
    this.bytes = new VersionedBytesStore(backend, options);
    this.name = options.name;
    this.historyRetentionMs = options.historyRetentionMs;
  }

  put(key: K, value: V | null, timestamp: number): number {
    const bytes = value === null || value === undefined ? null : this.valueSerde.serialize(value);
    return this.bytes.put(this.keyBytes(key), bytes, timestamp);
  }

  delete(key: K, timestamp: number): VersionedRecord<V> | null {
    return this.typed(this.bytes.delete(this.keyBytes(key), timestamp));
  }

  get(key: K, asOfTimestamp?: number): VersionedRecord<V> | null {
    const k = this.keyBytes(key);
    return this.typed(asOfTimestamp === undefined ? this.bytes.get(k) : this.bytes.getAsOf(k, asOfTimestamp));
  }

  /** The versions valid at some time in [fromTime, toTime], oldest first (MultiVersionedKeyQuery). */
  versions(key: K, fromTime: number, toTime: number): VersionedRecord<V>[] {
    return this.bytes
      .versions(this.keyBytes(key), fromTime, toTime)
      .map((r) => this.typed(r) as VersionedRecord<V>);
  }

  pendingChanges(): readonly VersionedChange[] {
    return this.bytes.pendingChanges();
  }

  committed(): void {
    this.bytes.committed();
  }

  cleanup(store: KeyValueBytesStore): Promise<number> {
    return this.bytes.cleanup(store);
  }

  private keyBytes(key: K): Buffer {
    if (key === null || key === undefined) {
      throw new InvalidStoreArgumentError(`Versioned store "${this.name}": keys must not be null.`);
    }
    return this.keySerde.serialize(key);
  }

  private typed(record: VersionedBytesRecord | undefined): VersionedRecord<V> | null {
    if (record === undefined) return null;
    return {
      value: this.valueSerde.deserialize(record.value),
      timestamp: record.timestamp,
      validTo: record.validTo,
    };
  }
}

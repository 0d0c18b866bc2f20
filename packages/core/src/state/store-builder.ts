import {
  type KeyValueBytesStore,
  type StoreSerde,
  type TransactionalBuffer,
  TypedKeyValueStore,
} from '@kstreams/state-store';
import type { Serde } from '../serdes/serde.ts';
import type { BytesStoreFactory } from './bytes-stores.ts';
import type { StateStore } from './state-store.ts';
import { TimestampSkippingSerde, timestampSkipping } from './value-and-timestamp.ts';
import { valueTimestampHeadersSerde } from './value-timestamp-headers.ts';

/**
 * Kafka Streams' `dsl.store.format` (KIP-1285): 'HEADERS' gives the DSL's key-value stores
 * (tables, aggregations) Kafka Streams' headers-aware format; 'DEFAULT' keeps them timestamped.
 */
export type DslStoreFormat = 'DEFAULT' | 'HEADERS';

/** The store kinds a task can hold. */
export type StoreType = 'key-value' | 'window' | 'session' | 'versioned';

/**
 * How to create a store in each task: its name, serdes and whether its changes go to a changelog
 * topic (`<applicationId>-<name>-changelog`). The bytes store itself comes from the store factory
 * of the runtime (LevelDB) or of the test driver (in memory); `build` puts the typed view over the
 * task's write buffer, so the task's state manager handles every kind the same way.
 */
export interface StoreBuilder<K = unknown, V = unknown> {
  readonly type: StoreType;
  readonly name: string;
  /** Undefined: the default key serde of the config. */
  readonly keySerde: Serde<K> | undefined;
  readonly valueSerde: Serde<V> | undefined;
  readonly loggingEnabled: boolean;
  /**
   * Each stored value carries a timestamp in front of its bytes (see value-and-timestamp.ts); then
   * `valueSerde` reads the plain values (and is undefined when the config's default is meant).
   */
  readonly timestamped?: boolean;
  /**
   * Each stored value carries headers and a timestamp in front of its bytes, in Kafka Streams'
   * ValueTimestampHeaders format (value-timestamp-headers.ts); the changelog holds the plain value
   * with the timestamp and headers as the record's (KIP-1271).
   */
  readonly headers?: boolean;
  /**
   * A DSL store whose format follows `dslStoreFormat` (Kafka Streams' DslStoreFormat): this store
   * in the format asked for. Absent: the store keeps its format.
   */
  withDslStoreFormat?(format: DslStoreFormat): StoreBuilder<K, V>;
  /** Window and session stores: how long windows are kept (by stream time); window stores' size. */
  readonly retentionMs?: number;
  readonly windowSizeMs?: number;
  /** A stream-stream join's window store: every put is its own entry, so its changelog is not compacted. */
  readonly retainDuplicates?: boolean;
  /** Headers on each changelog value (Kafka Streams' suppression buffer marks its format, `v` = 3). */
  readonly changelogHeaders?: { readonly [name: string]: Buffer };
  /**
   * Where a changelog record's key and value hold the serdes' own bytes, when not as they are (a
   * left/outer join's shared store: a prefixed key, a list of values): what the restore hands to
   * the serdes' `prepare`.
   */
  readonly changelogSerdeBytes?: { key(bytes: Buffer): Buffer; values(bytes: Buffer): Buffer[] };
  withLoggingEnabled(): StoreBuilder<K, V>;
  withLoggingDisabled(): StoreBuilder<K, V>;
  /** The bytes store under the task's buffer, of this builder's kind, from the runtime's or driver's factory. */
  bytesStore(stores: BytesStoreFactory): KeyValueBytesStore;
  /** The store processors see, over the task's buffer, with the serdes resolved against the defaults. */
  build(buffer: TransactionalBuffer, keySerde: StoreSerde<K>, valueSerde: StoreSerde<V>): StateStore;
}

/** The store a key-value builder puts over the task's buffer: what processors see. */
export type KeyValueStoreOver<K, V> = (
  name: string,
  buffer: TransactionalBuffer,
  keySerde: StoreSerde<K>,
  valueSerde: StoreSerde<V>,
) => StateStore;

/**
 * Every store kept in a key-value bytes store, the store it builds over the buffer a parameter:
 * the Processor API's key-value store, the suppression buffer and the stream-table join's buffer
 * differ only in that (and in the changelog's headers), so one builder serves all of them.
 */
class KeyValueStoreBuilder<K, V> implements StoreBuilder<K, V> {
  readonly type = 'key-value' as const;

  constructor(
    readonly name: string,
    readonly keySerde: Serde<K> | undefined,
    readonly valueSerde: Serde<V> | undefined,
    readonly loggingEnabled: boolean,
    private readonly storeOver: KeyValueStoreOver<K, V>,
    readonly changelogHeaders: { readonly [name: string]: Buffer } | undefined,
  ) {}

  withLoggingEnabled(): StoreBuilder<K, V> {
    return this.withLogging(true);
  }

  withLoggingDisabled(): StoreBuilder<K, V> {
    return this.withLogging(false);
  }

  bytesStore(stores: BytesStoreFactory): KeyValueBytesStore {
    return stores.keyValue(this.name);
  }

  build(buffer: TransactionalBuffer, keySerde: StoreSerde<K>, valueSerde: StoreSerde<V>): StateStore {
    return this.storeOver(this.name, buffer, keySerde, valueSerde);
  }

  private withLogging(loggingEnabled: boolean): StoreBuilder<K, V> {
    const { name, keySerde, valueSerde, storeOver, changelogHeaders } = this;
    return new KeyValueStoreBuilder(name, keySerde, valueSerde, loggingEnabled, storeOver, changelogHeaders);
  }
}

/** A builder of a store kept in a key-value bytes store: `storeOver` makes the store over the task's buffer. */
export function keyValueBytesStoreBuilder<K, V>(
  name: string,
  serdes: { readonly keySerde: Serde<K> | undefined; readonly valueSerde: Serde<V> | undefined },
  options: {
    readonly loggingEnabled: boolean;
    readonly storeOver: KeyValueStoreOver<K, V>;
    readonly changelogHeaders?: { readonly [name: string]: Buffer };
  },
): StoreBuilder<K, V> {
  const { loggingEnabled, storeOver, changelogHeaders } = options;
  return new KeyValueStoreBuilder(
    name,
    serdes.keySerde,
    serdes.valueSerde,
    loggingEnabled,
    storeOver,
    changelogHeaders,
  );
}

/**
 * The store of a DSL aggregation: Kafka Streams stamps an aggregate with the largest timestamp of
 * the records that made it, so each value is stored with its timestamp in front of its bytes. The
 * changelog holds the plain value with that timestamp as the record's timestamp (Kafka Streams'
 * format, so Java tools read it); the state manager splits and joins the two. With
 * `dslStoreFormat: 'HEADERS'` the values are in Kafka Streams' headers-aware format instead, with
 * the empty headers Kafka Streams 4.4's operators store.
 */
class TimestampedKeyValueStoreBuilder<K, V> implements StoreBuilder<K, V> {
  readonly type = 'key-value' as const;
  readonly timestamped = true;
  readonly valueSerde: Serde<V> | undefined;

  constructor(
    readonly name: string,
    readonly keySerde: Serde<K> | undefined,
    private readonly plainValueSerde: Serde<V> | undefined,
    readonly loggingEnabled: boolean,
    readonly headers = false,
  ) {
    this.valueSerde =
      plainValueSerde === undefined ? undefined : new TimestampSkippingSerde(plainValueSerde, headers);
  }

  withLoggingEnabled(): StoreBuilder<K, V> {
    return new TimestampedKeyValueStoreBuilder(
      this.name,
      this.keySerde,
      this.plainValueSerde,
      true,
      this.headers,
    );
  }

  withLoggingDisabled(): StoreBuilder<K, V> {
    return new TimestampedKeyValueStoreBuilder(
      this.name,
      this.keySerde,
      this.plainValueSerde,
      false,
      this.headers,
    );
  }

  withDslStoreFormat(format: DslStoreFormat): StoreBuilder<K, V> {
    const headers = format === 'HEADERS';
    if (headers === this.headers) return this;
    return new TimestampedKeyValueStoreBuilder(
      this.name,
      this.keySerde,
      this.plainValueSerde,
      this.loggingEnabled,
      headers,
    );
  }

  bytesStore(stores: BytesStoreFactory): KeyValueBytesStore {
    return this.headers ? stores.keyValue(this.name, 'headers') : stores.keyValue(this.name);
  }

  /** Seen through getStateStore, the store shows plain values, as Kafka Streams' facade does. */
  build(buffer: TransactionalBuffer, keySerde: StoreSerde<K>, valueSerde: StoreSerde<V>): StateStore {
    return new TypedKeyValueStore(this.name, buffer, keySerde, timestampSkipping(valueSerde, this.headers));
  }
}

/**
 * Kafka Streams' TimestampedKeyValueStoreWithHeaders (KIP-1271), for the Processor API: processors
 * read and write ValueTimestampHeaders (value, timestamp, headers), so a record's headers (trace
 * context, a schema id) survive the store and its changelog. `valueSerde` is the plain values'.
 */
class TimestampedKeyValueStoreWithHeadersBuilder<K, V> implements StoreBuilder<K, V> {
  readonly type = 'key-value' as const;
  readonly headers = true;

  constructor(
    readonly name: string,
    readonly keySerde: Serde<K> | undefined,
    readonly valueSerde: Serde<V> | undefined,
    readonly loggingEnabled: boolean,
  ) {}

  withLoggingEnabled(): StoreBuilder<K, V> {
    return new TimestampedKeyValueStoreWithHeadersBuilder(this.name, this.keySerde, this.valueSerde, true);
  }

  withLoggingDisabled(): StoreBuilder<K, V> {
    return new TimestampedKeyValueStoreWithHeadersBuilder(this.name, this.keySerde, this.valueSerde, false);
  }

  bytesStore(stores: BytesStoreFactory): KeyValueBytesStore {
    return stores.keyValue(this.name, 'headers');
  }

  build(buffer: TransactionalBuffer, keySerde: StoreSerde<K>, valueSerde: StoreSerde<V>): StateStore {
    return new TypedKeyValueStore(this.name, buffer, keySerde, valueTimestampHeadersSerde(valueSerde));
  }
}

export const Stores = {
  /** A key-value store with a changelog topic (disable it with `withLoggingDisabled()`). */
  keyValueStoreBuilder<K, V>(name: string, keySerde?: Serde<K>, valueSerde?: Serde<V>): StoreBuilder<K, V> {
    return keyValueBytesStoreBuilder(
      name,
      { keySerde, valueSerde },
      {
        loggingEnabled: true,
        storeOver: (storeName, buffer, keys, values) =>
          new TypedKeyValueStore(storeName, buffer, keys, values),
      },
    );
  },
  /**
   * Kafka Streams' `Stores.timestampedKeyValueStoreWithHeadersBuilder` (KIP-1271): processors get a
   * `KeyValueStore<K, ValueTimestampHeaders<V>>`; the serdes are the key's and the plain value's.
   */
  timestampedKeyValueStoreWithHeadersBuilder<K, V>(
    name: string,
    keySerde?: Serde<K>,
    valueSerde?: Serde<V>,
  ): StoreBuilder<K, V> {
    return new TimestampedKeyValueStoreWithHeadersBuilder(name, keySerde, valueSerde, true);
  },
} as const;

/**
 * The DSL's aggregation stores (internal until processors get a timestamped store type of their
 * own): values keep a timestamp, read with `timestampedView`; `valueSerde` is for the plain values.
 */
export function timestampedKeyValueStoreBuilder<K, V>(
  name: string,
  keySerde?: Serde<K>,
  valueSerde?: Serde<V>,
): StoreBuilder<K, V> {
  return new TimestampedKeyValueStoreBuilder(name, keySerde, valueSerde, true);
}

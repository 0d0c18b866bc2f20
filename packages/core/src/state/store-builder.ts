import type { Serde } from '../serdes/serde.ts';
import { TimestampSkippingSerde } from './value-and-timestamp.ts';

/**
 * How to create a store in each task: its name, serdes and whether its changes go to a changelog
 * topic (`<applicationId>-<name>-changelog`). The bytes store itself comes from the store factory
 * of the runtime (LevelDB) or of the test driver (in memory).
 */
export interface StoreBuilder<K = unknown, V = unknown> {
  readonly type: 'key-value';
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
  withLoggingEnabled(): StoreBuilder<K, V>;
  withLoggingDisabled(): StoreBuilder<K, V>;
}

class KeyValueStoreBuilder<K, V> implements StoreBuilder<K, V> {
  readonly type = 'key-value' as const;

  constructor(
    readonly name: string,
    readonly keySerde: Serde<K> | undefined,
    readonly valueSerde: Serde<V> | undefined,
    readonly loggingEnabled: boolean,
  ) {}

  withLoggingEnabled(): StoreBuilder<K, V> {
    return new KeyValueStoreBuilder(this.name, this.keySerde, this.valueSerde, true);
  }

  withLoggingDisabled(): StoreBuilder<K, V> {
    return new KeyValueStoreBuilder(this.name, this.keySerde, this.valueSerde, false);
  }
}

/**
 * The store of a DSL aggregation: Kafka Streams stamps an aggregate with the largest timestamp of
 * the records that made it, so each value is stored with its timestamp. The changelog carries the
 * same bytes, so that a restore brings the timestamps back too.
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
  ) {
    this.valueSerde = plainValueSerde === undefined ? undefined : new TimestampSkippingSerde(plainValueSerde);
  }

  withLoggingEnabled(): StoreBuilder<K, V> {
    return new TimestampedKeyValueStoreBuilder(this.name, this.keySerde, this.plainValueSerde, true);
  }

  withLoggingDisabled(): StoreBuilder<K, V> {
    return new TimestampedKeyValueStoreBuilder(this.name, this.keySerde, this.plainValueSerde, false);
  }
}

export const Stores = {
  /** A key-value store with a changelog topic (disable it with `withLoggingDisabled()`). */
  keyValueStoreBuilder<K, V>(name: string, keySerde?: Serde<K>, valueSerde?: Serde<V>): StoreBuilder<K, V> {
    return new KeyValueStoreBuilder(name, keySerde, valueSerde, true);
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

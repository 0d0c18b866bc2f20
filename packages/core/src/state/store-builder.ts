import type { Serde } from '../serdes/serde.ts';

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

export const Stores = {
  /** A key-value store with a changelog topic (disable it with `withLoggingDisabled()`). */
  keyValueStoreBuilder<K, V>(name: string, keySerde?: Serde<K>, valueSerde?: Serde<V>): StoreBuilder<K, V> {
    return new KeyValueStoreBuilder(name, keySerde, valueSerde, true);
  },
} as const;

import { type StoreSerde, type TransactionalBuffer, TypedKeyValueStore } from '@kstreams/state-store';
import type { Serde } from '../serdes/serde.ts';
import type { StateStore } from './state-store.ts';

/** The store kinds a task can hold; window and session stores join this list. */
export type StoreType = 'key-value';

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
  withLoggingEnabled(): StoreBuilder<K, V>;
  withLoggingDisabled(): StoreBuilder<K, V>;
  /** The store processors see, over the task's buffer, with the serdes resolved against the defaults. */
  build(buffer: TransactionalBuffer, keySerde: StoreSerde<K>, valueSerde: StoreSerde<V>): StateStore;
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

  build(buffer: TransactionalBuffer, keySerde: StoreSerde<K>, valueSerde: StoreSerde<V>): StateStore {
    return new TypedKeyValueStore(this.name, buffer, keySerde, valueSerde);
  }
}

export const Stores = {
  /** A key-value store with a changelog topic (disable it with `withLoggingDisabled()`). */
  keyValueStoreBuilder<K, V>(name: string, keySerde?: Serde<K>, valueSerde?: Serde<V>): StoreBuilder<K, V> {
    return new KeyValueStoreBuilder(name, keySerde, valueSerde, true);
  },
} as const;

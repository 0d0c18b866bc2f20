import {
  type KeyValueBytesStore,
  type StoreSerde,
  type TransactionalBuffer,
  TypedSessionStore,
} from '@kstreams/state-store';
import { ConfigError } from '../errors.ts';
import type { Serde } from '../serdes/serde.ts';
import type { BytesStoreFactory } from './bytes-stores.ts';
import type { StateStore } from './state-store.ts';
import type { StoreBuilder } from './store-builder.ts';

/**
 * A session store in each task (Kafka Streams' Stores.sessionStoreBuilder): keys in Java's session
 * layout `[key][end][start]` (also the changelog's), segmented by session end, sessions kept until
 * stream time passes their end plus `retentionMs`. Values are plain aggregates (Kafka Streams'
 * session stores keep no timestamp: a session's timestamp is its end).
 */
class SessionStoreBuilder<K, V> implements StoreBuilder<K, V> {
  readonly type = 'session' as const;

  constructor(
    readonly name: string,
    readonly retentionMs: number,
    readonly keySerde: Serde<K> | undefined,
    readonly valueSerde: Serde<V> | undefined,
    readonly loggingEnabled: boolean,
  ) {
    if (!Number.isSafeInteger(retentionMs) || retentionMs < 0)
      throw new ConfigError(
        `Session store '${name}': retention must be a whole number of ms >= 0, got ${retentionMs}`,
      );
  }

  withLoggingEnabled(): StoreBuilder<K, V> {
    return new SessionStoreBuilder(this.name, this.retentionMs, this.keySerde, this.valueSerde, true);
  }

  withLoggingDisabled(): StoreBuilder<K, V> {
    return new SessionStoreBuilder(this.name, this.retentionMs, this.keySerde, this.valueSerde, false);
  }

  bytesStore(stores: BytesStoreFactory): KeyValueBytesStore {
    return stores.session(this.name, this.retentionMs);
  }

  build(buffer: TransactionalBuffer, keySerde: StoreSerde<K>, valueSerde: StoreSerde<V>): StateStore {
    return new TypedSessionStore(this.name, buffer, keySerde, valueSerde);
  }
}

/** A session store for the Processor API and the DSL's session aggregations. */
export function sessionStoreBuilder<K, V>(
  name: string,
  options: { retentionMs: number },
  keySerde?: Serde<K>,
  valueSerde?: Serde<V>,
): StoreBuilder<K, V> {
  return new SessionStoreBuilder(name, options.retentionMs, keySerde, valueSerde, true);
}

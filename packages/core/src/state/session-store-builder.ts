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
import type { DslStoreFormat, StoreBuilder } from './store-builder.ts';
import { aggregationSkippingHeaders } from './value-timestamp-headers.ts';

/**
 * A session store in each task (Kafka Streams' Stores.sessionStoreBuilder): keys in Java's session
 * layout `[key][end][start]` (also the changelog's), segmented by session end, sessions kept until
 * stream time passes their end plus `retentionMs`. Values are plain aggregates (Kafka Streams'
 * session stores keep no timestamp: a session's timestamp is its end). A DSL session store with
 * `dslStoreFormat: 'HEADERS'` holds Kafka Streams 4.4's AggregationWithHeaders bytes instead (its
 * SessionStoreMaterializer), with the empty headers its session aggregation stores.
 */
class SessionStoreBuilder<K, V> implements StoreBuilder<K, V> {
  readonly type = 'session' as const;

  constructor(
    readonly name: string,
    readonly retentionMs: number,
    readonly keySerde: Serde<K> | undefined,
    readonly valueSerde: Serde<V> | undefined,
    readonly loggingEnabled: boolean,
    private readonly followsDslFormat = false,
    readonly headers = false,
  ) {
    if (!Number.isSafeInteger(retentionMs) || retentionMs < 0)
      throw new ConfigError(
        `Session store '${name}': retention must be a whole number of ms >= 0, got ${retentionMs}`,
      );
  }

  private with(logging: boolean, headers = this.headers): StoreBuilder<K, V> {
    const { name, retentionMs, keySerde, valueSerde, followsDslFormat } = this;
    return new SessionStoreBuilder(
      name,
      retentionMs,
      keySerde,
      valueSerde,
      logging,
      followsDslFormat,
      headers,
    );
  }

  withLoggingEnabled(): StoreBuilder<K, V> {
    return this.with(true);
  }

  withLoggingDisabled(): StoreBuilder<K, V> {
    return this.with(false);
  }

  withDslStoreFormat(format: DslStoreFormat): StoreBuilder<K, V> {
    const headers = format === 'HEADERS';
    if (!this.followsDslFormat || headers === this.headers) return this;
    return this.with(this.loggingEnabled, headers);
  }

  bytesStore(stores: BytesStoreFactory): KeyValueBytesStore {
    return this.headers
      ? stores.session(this.name, this.retentionMs, 'headers')
      : stores.session(this.name, this.retentionMs);
  }

  /** A headers-aware store is read and written as plain aggregates: the DSL stores empty headers. */
  build(buffer: TransactionalBuffer, keySerde: StoreSerde<K>, valueSerde: StoreSerde<V>): StateStore {
    const values = this.headers ? aggregationSkippingHeaders(valueSerde) : valueSerde;
    return new TypedSessionStore(this.name, buffer, keySerde, values);
  }
}

/** A session store for the Processor API (Kafka Streams' Stores.sessionStoreBuilder). */
export function sessionStoreBuilder<K, V>(
  name: string,
  options: { retentionMs: number },
  keySerde?: Serde<K>,
  valueSerde?: Serde<V>,
): StoreBuilder<K, V> {
  return new SessionStoreBuilder(name, options.retentionMs, keySerde, valueSerde, true);
}

/** The DSL's session aggregation stores: their format follows `dslStoreFormat`. */
export function dslSessionStoreBuilder<K, V>(
  name: string,
  options: { retentionMs: number },
  keySerde?: Serde<K>,
  valueSerde?: Serde<V>,
): StoreBuilder<K, V> {
  return new SessionStoreBuilder(name, options.retentionMs, keySerde, valueSerde, true, true);
}

import type { KeyValueBytesStore, StoreSerde, TransactionalBuffer } from '@kstreams/state-store';
import { ConfigError } from '../errors.ts';
import type { Serde } from '../serdes/serde.ts';
import type { BytesStoreFactory } from './bytes-stores.ts';
import type { StateStore } from './state-store.ts';
import type { StoreBuilder } from './store-builder.ts';
import { TimestampSkippingSerde, timestampSkipping } from './value-and-timestamp.ts';
import { TypedWindowStore } from './window-store.ts';

export interface WindowStoreOptions {
  /** How long a window is kept, by stream time after its start; at least the window size. */
  retentionMs: number;
  windowSizeMs: number;
  /** Keep every put as its own entry (Kafka Streams' retainDuplicates, for stream-stream joins). */
  retainDuplicates?: boolean;
}

/**
 * A window store in each task. The DSL's windowed aggregations use the timestamped kind: each value
 * is stored with its timestamp in front, and the changelog holds the plain value with that
 * timestamp as the record's (Kafka Streams' TimestampedWindowStore).
 */
class WindowStoreBuilder<K, V> implements StoreBuilder<K, V> {
  readonly type = 'window' as const;
  readonly valueSerde: Serde<V> | undefined;
  readonly retentionMs: number;
  readonly windowSizeMs: number;
  readonly retainDuplicates: boolean;

  constructor(
    readonly name: string,
    options: WindowStoreOptions,
    readonly keySerde: Serde<K> | undefined,
    private readonly plainValueSerde: Serde<V> | undefined,
    readonly loggingEnabled: boolean,
    readonly timestamped: boolean,
  ) {
    const { retentionMs, windowSizeMs } = options;
    // A stream-stream join with time difference 0 has windows of size 0, as in Kafka Streams.
    const smallest = options.retainDuplicates === true ? 0 : 1;
    if (!Number.isSafeInteger(windowSizeMs) || windowSizeMs < smallest)
      throw new ConfigError(
        `Window store '${name}': the window size must be a ${smallest === 0 ? 'non-negative' : 'positive'} number of ms, got ${windowSizeMs}`,
      );
    if (!Number.isSafeInteger(retentionMs) || retentionMs < windowSizeMs)
      throw new ConfigError(
        `Window store '${name}': retention (${retentionMs} ms) must be at least the window size (${windowSizeMs} ms)`,
      );
    this.retentionMs = retentionMs;
    this.windowSizeMs = windowSizeMs;
    this.retainDuplicates = options.retainDuplicates === true;
    this.valueSerde =
      timestamped && plainValueSerde !== undefined
        ? new TimestampSkippingSerde(plainValueSerde)
        : plainValueSerde;
  }

  private with(logging: boolean): StoreBuilder<K, V> {
    const options = {
      retentionMs: this.retentionMs,
      windowSizeMs: this.windowSizeMs,
      retainDuplicates: this.retainDuplicates,
    };
    return new WindowStoreBuilder(
      this.name,
      options,
      this.keySerde,
      this.plainValueSerde,
      logging,
      this.timestamped,
    );
  }

  withLoggingEnabled(): StoreBuilder<K, V> {
    return this.with(true);
  }

  withLoggingDisabled(): StoreBuilder<K, V> {
    return this.with(false);
  }

  bytesStore(stores: BytesStoreFactory): KeyValueBytesStore {
    return stores.window(this.name, this.retentionMs);
  }

  build(buffer: TransactionalBuffer, keySerde: StoreSerde<K>, valueSerde: StoreSerde<V>): StateStore {
    const values = this.timestamped ? timestampSkipping(valueSerde) : valueSerde;
    return new TypedWindowStore(
      this.name,
      buffer,
      keySerde,
      values,
      this.windowSizeMs,
      this.retainDuplicates,
      this.retentionMs,
    );
  }
}

/** A window store for the Processor API (Kafka Streams' Stores.windowStoreBuilder). */
export function windowStoreBuilder<K, V>(
  name: string,
  options: WindowStoreOptions,
  keySerde?: Serde<K>,
  valueSerde?: Serde<V>,
): StoreBuilder<K, V> {
  return new WindowStoreBuilder(name, options, keySerde, valueSerde, true, false);
}

/** The DSL's windowed aggregation stores: values keep their timestamps. */
export function timestampedWindowStoreBuilder<K, V>(
  name: string,
  options: WindowStoreOptions,
  keySerde?: Serde<K>,
  valueSerde?: Serde<V>,
): StoreBuilder<K, V> {
  return new WindowStoreBuilder(name, options, keySerde, valueSerde, true, true);
}

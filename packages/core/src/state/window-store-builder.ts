import type { KeyValueBytesStore, StoreSerde, TransactionalBuffer } from '@kstreams/state-store';
import { ConfigError } from '../errors.ts';
import type { Serde } from '../serdes/serde.ts';
import type { BytesStoreFactory } from './bytes-stores.ts';
import type { StateStore } from './state-store.ts';
import type { DslStoreFormat, StoreBuilder } from './store-builder.ts';
import { TimestampSkippingSerde, timestampSkipping } from './value-and-timestamp.ts';
import { TypedWindowStore } from './window-store.ts';

export interface WindowStoreOptions {
  /** How long a window is kept, by stream time after its start; at least the window size. */
  retentionMs: number;
  windowSizeMs: number;
  /** Keep every put as its own entry (Kafka Streams' retainDuplicates, for stream-stream joins). */
  retainDuplicates?: boolean;
}

/** Whose window store it is: the Processor API's keeps its format, the DSL's follow `dslStoreFormat`. */
type WindowStoreKind = 'plain' | 'dsl-timestamped' | 'dsl-join';

/**
 * A window store in each task. The DSL's windowed aggregations use the timestamped kind: each value
 * is stored with its timestamp in front, and the changelog holds the plain value with that
 * timestamp as the record's (Kafka Streams' TimestampedWindowStore). With `dslStoreFormat:
 * 'HEADERS'` the DSL's window stores (aggregations' and a stream-stream join's, as Kafka Streams
 * 4.4's WindowStoreMaterializer and StreamJoinedStoreFactory) hold Kafka Streams'
 * ValueTimestampHeaders bytes: aggregations with empty headers, a join each record's headers.
 */
class WindowStoreBuilder<K, V> implements StoreBuilder<K, V> {
  readonly type = 'window' as const;
  readonly valueSerde: Serde<V> | undefined;
  readonly retentionMs: number;
  readonly windowSizeMs: number;
  readonly retainDuplicates: boolean;
  readonly timestamped: boolean;

  constructor(
    readonly name: string,
    options: WindowStoreOptions,
    readonly keySerde: Serde<K> | undefined,
    private readonly plainValueSerde: Serde<V> | undefined,
    readonly loggingEnabled: boolean,
    private readonly kind: WindowStoreKind,
    readonly headers = false,
  ) {
    this.timestamped = kind === 'dsl-timestamped' || headers;
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
      this.timestamped && plainValueSerde !== undefined
        ? new TimestampSkippingSerde(plainValueSerde, headers)
        : plainValueSerde;
  }

  private with(logging: boolean, headers = this.headers): StoreBuilder<K, V> {
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
      this.kind,
      headers,
    );
  }

  withDslStoreFormat(format: DslStoreFormat): StoreBuilder<K, V> {
    const headers = format === 'HEADERS';
    if (this.kind === 'plain' || headers === this.headers) return this;
    return this.with(this.loggingEnabled, headers);
  }

  withLoggingEnabled(): StoreBuilder<K, V> {
    return this.with(true);
  }

  withLoggingDisabled(): StoreBuilder<K, V> {
    return this.with(false);
  }

  bytesStore(stores: BytesStoreFactory): KeyValueBytesStore {
    return this.headers
      ? stores.window(this.name, this.retentionMs, 'headers')
      : stores.window(this.name, this.retentionMs);
  }

  build(buffer: TransactionalBuffer, keySerde: StoreSerde<K>, valueSerde: StoreSerde<V>): StateStore {
    const values = this.timestamped ? timestampSkipping(valueSerde, this.headers) : valueSerde;
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
  return new WindowStoreBuilder(name, options, keySerde, valueSerde, true, 'plain');
}

/**
 * A stream-stream join's window store: plain values by default; with `dslStoreFormat: 'HEADERS'`
 * each record's value, timestamp and headers (Kafka Streams 4.4's KStreamJoinWindow puts
 * ValueTimestampHeaders.make(value, timestamp, headers)).
 */
export function joinWindowStoreBuilder<K, V>(
  name: string,
  options: WindowStoreOptions,
  keySerde?: Serde<K>,
  valueSerde?: Serde<V>,
): StoreBuilder<K, V> {
  return new WindowStoreBuilder(name, options, keySerde, valueSerde, true, 'dsl-join');
}

/** The DSL's windowed aggregation stores: values keep their timestamps. */
export function timestampedWindowStoreBuilder<K, V>(
  name: string,
  options: WindowStoreOptions,
  keySerde?: Serde<K>,
  valueSerde?: Serde<V>,
): StoreBuilder<K, V> {
  return new WindowStoreBuilder(name, options, keySerde, valueSerde, true, 'dsl-timestamped');
}

import { TopologyError } from '../errors.ts';
import type { Serde } from '../serdes/serde.ts';
import { SessionWindowedSerde, TimeWindowedSerde } from '../serdes/windowed-serdes.ts';
import { dslSessionStoreBuilder } from '../state/session-store-builder.ts';
import { timestampedKeyValueStoreBuilder } from '../state/store-builder.ts';
import { timestampedWindowStoreBuilder } from '../state/window-store-builder.ts';
import type { Windowed } from '../windowed.ts';
import { StreamAggregateProcessor } from './internals/aggregate-processors.ts';
import {
  addCogroupAggregation,
  type CogroupAggregator,
  type CogroupInput,
} from './internals/cogroup-builder.ts';
import type { InternalStreamsBuilder } from './internals/internal-streams-builder.ts';
import { SessionWindowAggregateProcessor } from './internals/session-window-aggregate-processor.ts';
import { SlidingWindowAggregateProcessor } from './internals/sliding-window-aggregate-processor.ts';
import { WindowAggregateProcessor } from './internals/window-aggregate-processor.ts';
import { sessionStoreRetention, windowStoreSpec } from './internals/windowed-retention.ts';
import type { KGroupedStream } from './kgrouped-stream.ts';
import type { KTable } from './ktable.ts';
import type { Materialized } from './options.ts';
import { SessionWindows } from './session-windows.ts';
import { SlidingWindows } from './sliding-windows.ts';
import { TimeWindows } from './time-windows.ts';

/** The grouped streams of a cogroup and each one's aggregator, in the order they were added. */
type Groups = Map<CogroupInput, CogroupAggregator>;

function requireAggregator(aggregator: unknown): void {
  if (typeof aggregator !== 'function') {
    throw new TopologyError('cogroup needs an aggregator: (key, value, aggregate) => new aggregate');
  }
}

function requireInitializer(initializer: unknown, call: string): void {
  if (typeof initializer !== 'function') {
    throw new TopologyError(`${call} needs an initializer: () => the initial aggregate`);
  }
}

/**
 * Several grouped streams with the same key type aggregated into one table with one store
 * (Kafka Streams' CogroupedKStream, KIP-150): each grouped stream has its own aggregator, all
 * share the initializer and the result type. Created by `KGroupedStream.cogroup(aggregator)`.
 * As with `aggregate`, records with a null key or value are skipped.
 */
export class CogroupedKStream<K, VOut> {
  /** @internal */
  constructor(
    private readonly builder: InternalStreamsBuilder,
    private readonly keySerde: Serde<K> | undefined,
    private readonly groups: Groups,
  ) {}

  /**
   * Adds another grouped stream and its aggregator (Kafka Streams' cogroup(groupedStream,
   * aggregator)); cogrouping a stream again replaces its aggregator, as in Kafka Streams.
   */
  cogroup<VIn>(
    groupedStream: KGroupedStream<K, VIn>,
    aggregator: (key: K, value: VIn, aggregate: VOut) => VOut,
  ): CogroupedKStream<K, VOut> {
    requireAggregator(aggregator);
    this.groups.set(groupedStream.cogroupInput(), aggregator as CogroupAggregator);
    return this;
  }

  /**
   * The aggregate per key (Kafka Streams' aggregate(initializer, [Named], [Materialized])):
   * `materialized.name` names the processors (`<name>-cogroup-agg-<i>`, `<name>-cogroup-merge`).
   */
  aggregate(initializer: () => VOut, materialized: Materialized<K, VOut> = {}): KTable<K, VOut> {
    requireInitializer(initializer, 'CogroupedKStream.aggregate');
    return addCogroupAggregation<K, VOut, K>(this.builder, this.groups, {
      materialized,
      keySerde: this.keySerde,
      processor: (storeName, aggregator) => () =>
        new StreamAggregateProcessor(storeName, initializer, aggregator),
      store: (storeName, keySerde, valueSerde) =>
        timestampedKeyValueStoreBuilder(storeName, keySerde, valueSerde),
    });
  }

  /** The cogroup cut into time windows (tumbling, hopping or sliding) or sessions. */
  windowedBy(windows: TimeWindows | SlidingWindows): TimeWindowedCogroupedKStream<K, VOut>;
  windowedBy(windows: SessionWindows): SessionWindowedCogroupedKStream<K, VOut>;
  windowedBy(
    windows: TimeWindows | SlidingWindows | SessionWindows,
  ): TimeWindowedCogroupedKStream<K, VOut> | SessionWindowedCogroupedKStream<K, VOut> {
    if (windows instanceof SessionWindows) {
      return new SessionWindowedCogroupedKStream(this.builder, this.keySerde, this.groups, windows);
    }
    if (!(windows instanceof TimeWindows || windows instanceof SlidingWindows)) {
      throw new TopologyError(
        'CogroupedKStream.windowedBy needs TimeWindows, SlidingWindows or SessionWindows (e.g. TimeWindows.ofSizeWithNoGrace(60_000))',
      );
    }
    return new TimeWindowedCogroupedKStream(this.builder, this.keySerde, this.groups, windows);
  }
}

/**
 * A cogroup cut into time windows (Kafka Streams' TimeWindowedCogroupedKStream): tumbling or
 * hopping (TimeWindows) or sliding (SlidingWindows). The table is keyed by `Windowed<K>`.
 */
export class TimeWindowedCogroupedKStream<K, VOut> {
  /** @internal */
  constructor(
    private readonly builder: InternalStreamsBuilder,
    private readonly keySerde: Serde<K> | undefined,
    private readonly groups: Groups,
    private readonly windows: TimeWindows | SlidingWindows,
  ) {}

  aggregate(initializer: () => VOut, materialized: Materialized<K, VOut> = {}): KTable<Windowed<K>, VOut> {
    requireInitializer(initializer, 'TimeWindowedCogroupedKStream.aggregate');
    const { windows } = this;
    const { retentionMs, windowSizeMs } = windowStoreSpec(windows, materialized.retentionMs);
    return addCogroupAggregation<K, VOut, Windowed<K>>(this.builder, this.groups, {
      materialized,
      keySerde: this.keySerde,
      processor: (storeName, aggregator) =>
        windows instanceof SlidingWindows
          ? () => new SlidingWindowAggregateProcessor(storeName, windows, initializer, aggregator)
          : () => new WindowAggregateProcessor(storeName, windows, initializer, aggregator),
      store: (storeName, keySerde, valueSerde) =>
        timestampedWindowStoreBuilder(storeName, { retentionMs, windowSizeMs }, keySerde, valueSerde),
      tableKeySerde: (keySerde) => new TimeWindowedSerde(keySerde, windowSizeMs),
      graceMs: windows.graceMs,
    });
  }
}

/**
 * A cogroup cut into sessions (Kafka Streams' SessionWindowedCogroupedKStream): `merger` combines
 * two sessions' aggregates when a record joins them. The table is keyed by `Windowed<K>`.
 */
export class SessionWindowedCogroupedKStream<K, VOut> {
  /** @internal */
  constructor(
    private readonly builder: InternalStreamsBuilder,
    private readonly keySerde: Serde<K> | undefined,
    private readonly groups: Groups,
    private readonly windows: SessionWindows,
  ) {}

  aggregate(
    initializer: () => VOut,
    merger: (key: K, aggregate1: VOut, aggregate2: VOut) => VOut,
    materialized: Materialized<K, VOut> = {},
  ): KTable<Windowed<K>, VOut> {
    requireInitializer(initializer, 'SessionWindowedCogroupedKStream.aggregate');
    if (typeof merger !== 'function') {
      throw new TopologyError(
        'SessionWindowedCogroupedKStream.aggregate(initializer, merger, materialized?) needs a merger function',
      );
    }
    const { windows } = this;
    const retentionMs = sessionStoreRetention(windows, materialized.retentionMs);
    const merge = merger as (key: unknown, a: unknown, b: unknown) => unknown;
    return addCogroupAggregation<K, VOut, Windowed<K>>(this.builder, this.groups, {
      materialized,
      keySerde: this.keySerde,
      processor: (storeName, aggregator) => () =>
        new SessionWindowAggregateProcessor(storeName, windows, initializer, aggregator, merge),
      store: (storeName, keySerde, valueSerde) =>
        dslSessionStoreBuilder(storeName, { retentionMs }, keySerde, valueSerde),
      tableKeySerde: (keySerde) => new SessionWindowedSerde(keySerde),
    });
  }
}

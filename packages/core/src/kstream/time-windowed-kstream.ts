import { TopologyError } from '../errors.ts';
import type { Serde } from '../serdes/serde.ts';
import { Serdes } from '../serdes/serdes.ts';
import { TimeWindowedSerde } from '../serdes/windowed-serdes.ts';
import { timestampedWindowStoreBuilder } from '../state/window-store-builder.ts';
import type { Windowed } from '../windowed.ts';
import { EmitStrategy } from './emit-strategy.ts';
import { addAggregation } from './internals/aggregation.ts';
import type { InternalStreamsBuilder } from './internals/internal-streams-builder.ts';
import { SlidingWindowAggregateProcessor } from './internals/sliding-window-aggregate-processor.ts';
import { WindowAggregateProcessor } from './internals/window-aggregate-processor.ts';
import { lastEmitStoreName, WindowCloseEmitter } from './internals/window-close-emitter.ts';
import { windowStoreSpec } from './internals/windowed-retention.ts';
import type { KTable } from './ktable.ts';
import type { Materialized } from './options.ts';
import { SlidingWindows } from './sliding-windows.ts';
import type { TimeWindows } from './time-windows.ts';

/**
 * A grouped stream cut into time windows (Kafka Streams' TimeWindowedKStream): tumbling or hopping
 * (TimeWindows) or sliding (SlidingWindows, KIP-450). Each aggregation
 * gives a table keyed by `Windowed<K>` whose key serde writes Java's time-windowed layout.
 * Records with a null key are skipped (with time windows a null value reaches the aggregator; sliding
 * windows skip it too, as in Kafka Streams); records for a closed window are dropped (late).
 */
export class TimeWindowedKStream<K, V> {
  /** @internal */
  constructor(
    private readonly builder: InternalStreamsBuilder,
    private readonly windows: TimeWindows | SlidingWindows,
    private readonly keySerde: Serde<K> | undefined,
    private readonly valueSerde: Serde<V> | undefined,
    /** The node the windowed aggregation reads from, once it knows its store name (repartition). */
    private readonly parent: (storeName: string) => string,
    private readonly strategy: EmitStrategy = EmitStrategy.onWindowUpdate(),
  ) {}

  /** When results go downstream (KIP-825): every update (the default), or once when a window closes. */
  emitStrategy(strategy: EmitStrategy): TimeWindowedKStream<K, V> {
    const { builder, windows, keySerde, valueSerde, parent } = this;
    return new TimeWindowedKStream(builder, windows, keySerde, valueSerde, parent, strategy);
  }

  /** The number of records per key and window. */
  count(materialized: Materialized<K, number> = {}): KTable<Windowed<K>, number> {
    return this.build(
      materialized,
      Serdes.Long(),
      () => 0,
      (_k, _v, count) => (count as number) + 1,
    );
  }

  /** Combines the values of a key in a window; the first value is the initial aggregate. */
  reduce(
    reducer: (aggregate: V, value: V) => V,
    materialized: Materialized<K, V> = {},
  ): KTable<Windowed<K>, V> {
    // As Kafka Streams: no aggregate yet is null, and then the value is the aggregate.
    return this.build(
      materialized,
      this.valueSerde,
      () => null,
      (_k, v, agg) => (agg === null ? v : reducer(agg as V, v as V)),
      'KSTREAM-REDUCE-',
    );
  }

  aggregate<VA>(
    initializer: () => VA,
    aggregator: (key: K, value: V, aggregate: VA) => VA,
    materialized: Materialized<K, VA> = {},
  ): KTable<Windowed<K>, VA> {
    return this.build(
      materialized,
      undefined,
      initializer,
      aggregator as (k: unknown, v: unknown, a: unknown) => unknown,
    );
  }

  private build<VA>(
    materialized: Materialized<K, VA>,
    defaultValueSerde: Serde<VA> | undefined,
    initializer: () => unknown,
    aggregator: (k: unknown, v: unknown, a: unknown) => unknown,
    prefix = 'KSTREAM-AGGREGATE-',
  ): KTable<Windowed<K>, VA> {
    const { windows } = this;
    const sliding = windows instanceof SlidingWindows;
    const { retentionMs, windowSizeMs } = windowStoreSpec(windows, materialized.retentionMs);
    const onClose = this.strategy.type === 'on-window-close';
    if (onClose && sliding) {
      throw new TopologyError(
        'emitStrategy(EmitStrategy.onWindowClose()) works with TimeWindows only here, not yet with SlidingWindows; ' +
          'use suppress(Suppressed.untilWindowCloses(...)) on the sliding-window table instead',
      );
    }
    return addAggregation<K, VA, Windowed<K>>(this.builder, {
      prefix,
      materialized,
      keySerde: this.keySerde,
      defaultValueSerde,
      parent: this.parent,
      supplier: (storeName) =>
        sliding
          ? () => new SlidingWindowAggregateProcessor(storeName, windows, initializer, aggregator)
          : () =>
              new WindowAggregateProcessor(
                storeName,
                windows,
                initializer,
                aggregator,
                onClose ? new WindowCloseEmitter(windows, storeName) : undefined,
              ),
      store: (storeName, keySerde, valueSerde) =>
        timestampedWindowStoreBuilder(storeName, { retentionMs, windowSizeMs }, keySerde, valueSerde),
      tableKeySerde: (keySerde) => new TimeWindowedSerde(keySerde, windowSizeMs),
      graceMs: windows.graceMs,
      addExtras: (storeName, processorName) => {
        if (onClose)
          this.builder.addKeyValueStore(
            lastEmitStoreName(storeName),
            Serdes.String(),
            Serdes.Long(),
            true,
            processorName,
          );
      },
    });
  }
}

import { TopologyError } from '../errors.ts';
import type { Serde } from '../serdes/serde.ts';
import { Serdes } from '../serdes/serdes.ts';
import { TimeWindowedSerde } from '../serdes/windowed-serdes.ts';
import type { Windowed } from '../windowed.ts';
import { EmitStrategy } from './emit-strategy.ts';
import type { InternalStreamsBuilder } from './internals/internal-streams-builder.ts';
import { WindowAggregateProcessor } from './internals/window-aggregate-processor.ts';
import { lastEmitStoreName, WindowCloseEmitter } from './internals/window-close-emitter.ts';
import { KTable } from './ktable.ts';
import type { Materialized } from './options.ts';
import type { TimeWindows } from './time-windows.ts';

/**
 * A grouped stream cut into time windows (Kafka Streams' TimeWindowedKStream). Each aggregation
 * gives a table keyed by `Windowed<K>` whose key serde writes Java's time-windowed layout.
 * Records with a null key are skipped (a null value reaches the aggregator, as in Kafka Streams);
 * records for a closed window are dropped (late).
 */
export class TimeWindowedKStream<K, V> {
  /** @internal */
  constructor(
    private readonly builder: InternalStreamsBuilder,
    private readonly windows: TimeWindows,
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
  ): KTable<Windowed<K>, VA> {
    const { windows, builder } = this;
    const retentionMs = materialized.retentionMs ?? windows.retentionMs;
    if (retentionMs < windows.retentionMs) {
      throw new TopologyError(
        `Materialized retention (${retentionMs} ms) must be at least the window size plus grace (${windows.retentionMs} ms)`,
      );
    }
    const prefix = 'KSTREAM-AGGREGATE-';
    const storeName = materialized.storeName ?? builder.newStoreName(prefix);
    const name = builder.nameOr(materialized.name, prefix);
    const keySerde = materialized.keySerde ?? this.keySerde;
    const valueSerde = materialized.valueSerde ?? defaultValueSerde;
    const onClose = this.strategy.type === 'on-window-close';
    builder.addProcessor(
      name,
      () =>
        new WindowAggregateProcessor(
          storeName,
          windows,
          initializer,
          aggregator,
          onClose ? new WindowCloseEmitter(windows, storeName) : undefined,
        ),
      [this.parent(storeName)],
    );
    if (onClose)
      builder.addKeyValueStore(lastEmitStoreName(storeName), Serdes.String(), Serdes.Long(), true, name);
    builder.addWindowStore(
      storeName,
      { retentionMs, windowSizeMs: windows.sizeMs },
      keySerde as Serde<unknown> | undefined,
      valueSerde as Serde<unknown> | undefined,
      materialized.loggingEnabled,
      name,
    );
    return new KTable<Windowed<K>, VA>(
      builder,
      name,
      new TimeWindowedSerde(keySerde, windows.sizeMs),
      valueSerde,
      storeName,
      undefined,
      windows.graceMs,
    );
  }
}

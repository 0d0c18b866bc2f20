import { TopologyError } from '../errors.ts';
import type { AnySerde } from '../processor/internals/internal-topology-builder.ts';
import type { Serde } from '../serdes/serde.ts';
import { Serdes } from '../serdes/serdes.ts';
import { CogroupedKStream } from './cogrouped-kstream.ts';
import { StreamAggregateProcessor, StreamReduceProcessor } from './internals/aggregate-processors.ts';
import { addAggregation } from './internals/aggregation.ts';
import type { CogroupInput } from './internals/cogroup-builder.ts';
import type { InternalStreamsBuilder } from './internals/internal-streams-builder.ts';
import type { KTable } from './ktable.ts';
import type { Materialized } from './options.ts';
import { SessionWindowedKStream } from './session-windowed-kstream.ts';
import { SessionWindows } from './session-windows.ts';
import { SlidingWindows } from './sliding-windows.ts';
import { TimeWindowedKStream } from './time-windowed-kstream.ts';
import { TimeWindows } from './time-windows.ts';

/**
 * A grouped stream, ready to aggregate per key. If the key changed upstream, the aggregation
 * reads from a repartition topic `<applicationId>-<grouped name or store name>-repartition`.
 * Records with a null key or value are skipped.
 */
export class KGroupedStream<K, V> {
  /** @internal */
  constructor(
    private readonly builder: InternalStreamsBuilder,
    private readonly nodeName: string,
    private readonly keySerde: Serde<K> | undefined,
    private readonly valueSerde: Serde<V> | undefined,
    private readonly repartitionRequired: boolean,
    private readonly groupedName: string | undefined,
  ) {}

  /** The number of records per key, as `number` (stored and sent as 8-byte big-endian int64). */
  count(materialized: Materialized<K, number> = {}): KTable<K, number> {
    return this.build(
      'KSTREAM-AGGREGATE-',
      materialized,
      Serdes.Long(),
      (store) => () =>
        new StreamAggregateProcessor(
          store,
          () => 0,
          (_k, _v, count) => (count as number) + 1,
        ),
    );
  }

  /** Combines values of a key; the first value is the initial aggregate. */
  reduce(reducer: (aggregate: V, value: V) => V, materialized: Materialized<K, V> = {}): KTable<K, V> {
    return this.build(
      'KSTREAM-REDUCE-',
      materialized,
      this.valueSerde,
      (store) => () => new StreamReduceProcessor(store, reducer as (a: unknown, v: unknown) => unknown),
    );
  }

  aggregate<VA>(
    initializer: () => VA,
    aggregator: (key: K, value: V, aggregate: VA) => VA,
    materialized: Materialized<K, VA> = {},
  ): KTable<K, VA> {
    return this.build(
      'KSTREAM-AGGREGATE-',
      materialized,
      undefined,
      (store) => () =>
        new StreamAggregateProcessor(
          store,
          initializer,
          aggregator as (k: unknown, v: unknown, a: unknown) => unknown,
        ),
    );
  }

  /**
   * Starts a cogroup (Kafka Streams' cogroup, KIP-150): this stream with its aggregator; add more
   * grouped streams with `.cogroup(other, aggregator)`, then `aggregate` (or `windowedBy`) once
   * for all of them, into one store.
   */
  cogroup<VOut>(aggregator: (key: K, value: V, aggregate: VOut) => VOut): CogroupedKStream<K, VOut> {
    return new CogroupedKStream<K, VOut>(this.builder, this.keySerde, new Map()).cogroup(this, aggregator);
  }

  /** @internal What a cogroup reads of this grouped stream. */
  cogroupInput(): CogroupInput {
    this.cogroupKey ??= {
      nodeName: this.nodeName,
      keySerde: this.keySerde as Serde<unknown> | undefined,
      valueSerde: this.valueSerde as Serde<unknown> | undefined,
      repartitionRequired: this.repartitionRequired,
      groupedName: this.groupedName,
    };
    return this.cogroupKey;
  }

  /** One identity per grouped stream, so that cogrouping it again replaces its aggregator. */
  private cogroupKey: CogroupInput | undefined;

  /**
   * Cuts the grouped stream into windows for windowed aggregations: time windows (tumbling or
   * hopping), sliding windows, or sessions.
   */
  windowedBy(windows: TimeWindows | SlidingWindows): TimeWindowedKStream<K, V>;
  windowedBy(windows: SessionWindows): SessionWindowedKStream<K, V>;
  windowedBy(
    windows: TimeWindows | SlidingWindows | SessionWindows,
  ): TimeWindowedKStream<K, V> | SessionWindowedKStream<K, V> {
    const parent = (storeName: string) => this.parentFor(storeName);
    if (windows instanceof SessionWindows) {
      return new SessionWindowedKStream(this.builder, windows, this.keySerde, this.valueSerde, parent);
    }
    if (!(windows instanceof TimeWindows || windows instanceof SlidingWindows)) {
      throw new TopologyError(
        'windowedBy needs TimeWindows, SlidingWindows or SessionWindows (e.g. TimeWindows.ofSizeWithNoGrace(60_000))',
      );
    }
    return new TimeWindowedKStream(this.builder, windows, this.keySerde, this.valueSerde, parent);
  }

  private parentFor(storeName: string): string {
    return this.repartitionRequired
      ? this.builder.addRepartition(
          this.nodeName,
          this.groupedName ?? storeName,
          {
            keySerde: this.keySerde as AnySerde | undefined,
            valueSerde: this.valueSerde as AnySerde | undefined,
          },
          true,
        )
      : this.nodeName;
  }

  private build<VA>(
    prefix: string,
    materialized: Materialized<K, VA>,
    defaultValueSerde: Serde<VA> | undefined,
    supplier: (storeName: string) => () => StreamAggregateProcessor | StreamReduceProcessor,
  ): KTable<K, VA> {
    return addAggregation(this.builder, {
      prefix,
      materialized,
      keySerde: this.keySerde,
      defaultValueSerde,
      supplier,
      parent: (storeName) => this.parentFor(storeName),
    });
  }
}

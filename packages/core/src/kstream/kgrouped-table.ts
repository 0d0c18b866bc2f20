import type { AnySerde } from '../processor/internals/internal-topology-builder.ts';
import type { Serde } from '../serdes/serde.ts';
import { Serdes } from '../serdes/serdes.ts';
import { TableAggregateProcessor, TableReduceProcessor } from './internals/aggregate-processors.ts';
import { addAggregation } from './internals/aggregation.ts';
import { changeSerde } from './internals/change.ts';
import type { InternalStreamsBuilder } from './internals/internal-streams-builder.ts';
import type { KTable } from './ktable.ts';
import type { Materialized } from './options.ts';

/**
 * A re-grouped table. Each update of a source row arrives as "subtract the old value, add the
 * new one", so aggregations stay correct when rows change group or value.
 */
export class KGroupedTable<K, V> {
  /** @internal */
  constructor(
    private readonly builder: InternalStreamsBuilder,
    private readonly nodeName: string,
    private readonly keySerde: Serde<K> | undefined,
    private readonly valueSerde: Serde<V> | undefined,
    private readonly groupedName: string | undefined,
  ) {}

  /** Rows per group, as `number` (8-byte big-endian int64 on the wire). */
  count(materialized: Materialized<K, number> = {}): KTable<K, number> {
    return this.build(
      'KTABLE-AGGREGATE-',
      materialized,
      Serdes.Long(),
      (store) => () =>
        new TableAggregateProcessor(
          store,
          () => 0,
          (_k, _v, count) => (count as number) + 1,
          (_k, _v, count) => (count as number) - 1,
        ),
    );
  }

  reduce(
    adder: (aggregate: V, value: V) => V,
    subtractor: (aggregate: V, value: V) => V,
    materialized: Materialized<K, V> = {},
  ): KTable<K, V> {
    return this.build(
      'KTABLE-REDUCE-',
      materialized,
      this.valueSerde,
      (store) => () =>
        new TableReduceProcessor(
          store,
          adder as (a: unknown, v: unknown) => unknown,
          subtractor as (a: unknown, v: unknown) => unknown,
        ),
    );
  }

  aggregate<VA>(
    initializer: () => VA,
    adder: (key: K, value: V, aggregate: VA) => VA,
    subtractor: (key: K, value: V, aggregate: VA) => VA,
    materialized: Materialized<K, VA> = {},
  ): KTable<K, VA> {
    return this.build(
      'KTABLE-AGGREGATE-',
      materialized,
      undefined,
      (store) => () =>
        new TableAggregateProcessor(
          store,
          initializer,
          adder as (k: unknown, v: unknown, a: unknown) => unknown,
          subtractor as (k: unknown, v: unknown, a: unknown) => unknown,
        ),
    );
  }

  private build<VA>(
    prefix: string,
    materialized: Materialized<K, VA>,
    defaultValueSerde: Serde<VA> | undefined,
    supplier: (storeName: string) => () => TableAggregateProcessor | TableReduceProcessor,
  ): KTable<K, VA> {
    return addAggregation(this.builder, {
      prefix,
      materialized,
      keySerde: this.keySerde,
      defaultValueSerde,
      supplier,
      // Every table update travels as a change (old and new value) through the repartition topic.
      parent: (storeName) =>
        this.builder.addRepartition(
          this.nodeName,
          this.groupedName ?? storeName,
          {
            keySerde: this.keySerde as AnySerde | undefined,
            valueSerde: this.valueSerde as AnySerde | undefined,
            valueSerdeWrapper: changeSerde,
          },
          false,
        ),
    });
  }
}

import type { AnyProcessor, AnySerde } from '../../processor/internals/internal-topology-builder.ts';
import type { Serde } from '../../serdes/serde.ts';
import { KTable } from '../ktable.ts';
import type { Materialized } from '../options.ts';
import type { InternalStreamsBuilder } from './internal-streams-builder.ts';

export interface AggregationSpec<K, VA> {
  prefix: string;
  materialized: Materialized<K, VA>;
  keySerde: Serde<K> | undefined;
  defaultValueSerde: Serde<VA> | undefined;
  /** The node the aggregation reads from (a repartition source when the key changed). */
  parent(storeName: string): string;
  supplier(storeName: string): () => AnyProcessor;
}

/** The part every grouped aggregation shares: its processor, its store and the resulting table. */
export function addAggregation<K, VA>(
  builder: InternalStreamsBuilder,
  spec: AggregationSpec<K, VA>,
): KTable<K, VA> {
  const { prefix, materialized } = spec;
  const storeName = materialized.storeName ?? builder.newStoreName(prefix);
  const name = builder.nameOr(materialized.name, prefix);
  const keySerde = materialized.keySerde ?? spec.keySerde;
  const valueSerde = materialized.valueSerde ?? spec.defaultValueSerde;
  builder.addProcessor(name, spec.supplier(storeName), [spec.parent(storeName)]);
  builder.addKeyValueStore(
    storeName,
    keySerde as AnySerde | undefined,
    valueSerde as AnySerde | undefined,
    materialized.loggingEnabled,
    name,
    true,
  );
  return new KTable<K, VA>(builder, name, keySerde, valueSerde, storeName);
}

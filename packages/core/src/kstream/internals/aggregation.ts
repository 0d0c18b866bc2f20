import type { AnyProcessor } from '../../processor/internals/internal-topology-builder.ts';
import type { Serde } from '../../serdes/serde.ts';
import type { StoreBuilder } from '../../state/store-builder.ts';
import { timestampedKeyValueStoreBuilder } from '../../state/store-builder.ts';
import { KTable } from '../ktable.ts';
import type { Materialized } from '../options.ts';
import type { InternalStreamsBuilder } from './internal-streams-builder.ts';

export interface AggregationSpec<K, VA, KT = K> {
  prefix: string;
  materialized: Materialized<K, VA>;
  keySerde: Serde<K> | undefined;
  defaultValueSerde: Serde<VA> | undefined;
  /** The node the aggregation reads from (a repartition source when the key changed). */
  parent(storeName: string): string;
  supplier(storeName: string): () => AnyProcessor;
  /** The aggregation's store; by default a timestamped key-value store (windowed ones differ). */
  store?(storeName: string, keySerde: Serde<K> | undefined, valueSerde: Serde<VA> | undefined): StoreBuilder;
  /** The result table's key serde; by default the key serde (windowed ones wrap it). */
  tableKeySerde?(keySerde: Serde<K> | undefined): Serde<KT> | undefined;
  /** A windowed table's grace, which suppress(untilWindowCloses) needs downstream. */
  graceMs?: number;
  /** Adds what else the processor needs (emit-on-close's last-emit store), once it has its name. */
  addExtras?(storeName: string, processorName: string): void;
}

/**
 * The part every grouped aggregation shares, windowed or not: names (Kafka Streams' generated
 * store and processor names), serdes (Materialized's over the grouped stream's), the processor,
 * its store and the resulting table.
 */
export function addAggregation<K, VA, KT = K>(
  builder: InternalStreamsBuilder,
  spec: AggregationSpec<K, VA, KT>,
): KTable<KT, VA> {
  const { prefix, materialized } = spec;
  const storeName = materialized.storeName ?? builder.newStoreName(prefix);
  const name = builder.nameOr(materialized.name, prefix);
  const keySerde = materialized.keySerde ?? spec.keySerde;
  const valueSerde = materialized.valueSerde ?? spec.defaultValueSerde;
  builder.addProcessor(name, spec.supplier(storeName), [spec.parent(storeName)]);
  const store = spec.store
    ? spec.store(storeName, keySerde, valueSerde)
    : timestampedKeyValueStoreBuilder(storeName, keySerde, valueSerde);
  builder.addStateStore(store, materialized.loggingEnabled, name);
  if (materialized.cachingEnabled !== false) builder.topology.enableCaching(storeName);
  spec.addExtras?.(storeName, name);
  const tableKeySerde = spec.tableKeySerde
    ? spec.tableKeySerde(keySerde)
    : (keySerde as Serde<unknown> as Serde<KT> | undefined);
  return new KTable<KT, VA>(builder, name, tableKeySerde, valueSerde, storeName, undefined, spec.graceMs);
}

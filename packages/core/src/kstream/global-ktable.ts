import type { Serde } from '../serdes/serde.ts';
import type { InternalStreamsBuilder } from './internals/internal-streams-builder.ts';
import { type KTableValueGetterSupplier, storeValueGetter } from './internals/ktable-value-getter.ts';

/**
 * Kafka Streams' GlobalKTable: a table of all partitions of its topic, held whole by every
 * instance in a global store. The global stream thread restores it from the topic (read_committed)
 * before any task processes, then keeps it current; the topic is its changelog. Joins against it
 * (`KStream.join(globalTable, keySelector, joiner)`) need no co-partitioning and no repartition.
 */
export class GlobalKTable<K, V> {
  /** @internal */
  constructor(
    /** @internal */ readonly builder: InternalStreamsBuilder,
    /** @internal */ readonly keySerde: Serde<K> | undefined,
    /** @internal */ readonly valueSerde: Serde<V> | undefined,
    /** The global store's name (interactive queries, `TopologyTestDriver.getKeyValueStore`). */
    readonly queryableStoreName: string,
  ) {}

  /** @internal A global store is read without being connected to the processor. */
  valueGetterSupplier(): KTableValueGetterSupplier {
    return { ...storeValueGetter(this.queryableStoreName), storeNames: [] };
  }
}

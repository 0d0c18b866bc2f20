import type { AnySerde } from '../processor/internals/internal-topology-builder.ts';
import { sourceSettings } from '../processor/source-settings.ts';
import { Topology } from '../processor/topology.ts';
import { type StoreBuilder, timestampedKeyValueStoreBuilder } from '../state/store-builder.ts';
import { GlobalKTable } from './global-ktable.ts';
import { InternalStreamsBuilder } from './internals/internal-streams-builder.ts';
import { TableSourceProcessor } from './internals/ktable-processors.ts';
import { addTableSource } from './internals/versioned-table.ts';
import { KStream } from './kstream.ts';
import { KTable } from './ktable.ts';
import type { Consumed, Materialized } from './options.ts';

/** Entry point of the DSL: streams and tables from topics; `build()` gives the Topology. */
export class StreamsBuilder {
  private readonly internal = new InternalStreamsBuilder();

  /**
   * A record stream from one or more topics, or from every topic whose whole name matches a
   * RegExp (Kafka Streams' stream(Pattern)): `stream(/orders-.+/)`. Topics created later that
   * match join at the next metadata refresh (`metadataMaxAgeMs`); all topics of one pattern are
   * read by one source node, so partition n of each goes to the same task.
   */
  stream<K, V>(topics: string | readonly string[] | RegExp, consumed: Consumed<K, V> = {}): KStream<K, V> {
    const name = this.internal.nameOr(consumed.name, 'KSTREAM-SOURCE-');
    this.internal.topology.addSource(
      name,
      typeof topics === 'string' ? [topics] : topics,
      {
        keySerde: consumed.keySerde as AnySerde | undefined,
        valueSerde: consumed.valueSerde as AnySerde | undefined,
      },
      sourceSettings(name, consumed),
    );
    return new KStream<K, V>(this.internal, name, consumed.keySerde, consumed.valueSerde, false);
  }

  /** A changelog view of a topic: the latest value per key, materialized in a store; null deletes. */
  table<K, V>(
    topic: string,
    consumed: Consumed<K, V> = {},
    materialized: Materialized<K, V> = {},
  ): KTable<K, V> {
    const sourceName = this.internal.nameOr(consumed.name, 'KSTREAM-SOURCE-');
    const keySerde = materialized.keySerde ?? consumed.keySerde;
    const valueSerde = materialized.valueSerde ?? consumed.valueSerde;
    this.internal.topology.addSource(
      sourceName,
      [topic],
      {
        keySerde: consumed.keySerde as AnySerde | undefined,
        valueSerde: consumed.valueSerde as AnySerde | undefined,
      },
      sourceSettings(sourceName, consumed),
    );
    const storeName = materialized.storeName ?? this.internal.newStoreName(`${topic}-`);
    const name = this.internal.nameOr(materialized.name, 'KTABLE-SOURCE-');
    addTableSource(
      this.internal,
      name,
      sourceName,
      storeName,
      { keySerde, valueSerde },
      materialized as Materialized<unknown, unknown>,
    );
    return new KTable<K, V>(this.internal, name, keySerde, valueSerde, storeName);
  }

  /**
   * A GlobalKTable of all partitions of `topic` (Kafka Streams' globalTable): every instance
   * holds the whole table in a global store, restored before processing starts and kept current
   * by the global stream thread. No changelog topic: the topic itself is the changelog.
   */
  globalTable<K, V>(
    topic: string,
    consumed: Consumed<K, V> = {},
    materialized: Materialized<K, V> = {},
  ): GlobalKTable<K, V> {
    const keySerde = materialized.keySerde ?? consumed.keySerde;
    const valueSerde = materialized.valueSerde ?? consumed.valueSerde;
    // Kafka Streams' order of generated names: the store, the source, the table-source processor.
    const storeName = materialized.storeName ?? this.internal.newStoreName(`${topic}-`);
    const sourceName = this.internal.nameOr(consumed.name, 'KSTREAM-SOURCE-');
    const name = this.internal.nameOr(materialized.name, 'KTABLE-SOURCE-');
    this.internal.topology.addSource(sourceName, [topic], {
      keySerde: consumed.keySerde as AnySerde | undefined,
      valueSerde: consumed.valueSerde as AnySerde | undefined,
    });
    this.internal.addProcessor(name, () => new TableSourceProcessor(storeName), [sourceName]);
    this.internal.addStateStore(
      timestampedKeyValueStoreBuilder(
        storeName,
        keySerde as AnySerde | undefined,
        valueSerde as AnySerde | undefined,
      ),
      false,
      name,
    );
    this.internal.topology.markGlobal([sourceName, name], storeName);
    return new GlobalKTable<K, V>(this.internal, keySerde, valueSerde, storeName);
  }

  /** A store for Processor API processors added with `KStream.process(supplier, storeName)`. */
  addStateStore<K, V>(builder: StoreBuilder<K, V>): this {
    this.internal.topology.addStateStore(builder as StoreBuilder, []);
    return this;
  }

  /** The topology, validated: throws TopologyError if it cannot run. */
  build(): Topology {
    const topology = new Topology(this.internal.topology);
    topology.validate();
    return topology;
  }
}

import { TopologyError } from '../../errors.ts';
import {
  type AnyProcessor,
  type AnySerde,
  InternalTopologyBuilder,
  type SerdeWrapper,
  type SinkPartitioner,
} from '../../processor/internals/internal-topology-builder.ts';
import type { Serde } from '../../serdes/serde.ts';
import { type StoreBuilder, Stores, timestampedKeyValueStoreBuilder } from '../../state/store-builder.ts';
import { DropNullKeyProcessor, PassThroughProcessor } from './kstream-processors.ts';

/**
 * What every DSL object holds: the shared processor graph and the name counter, so that
 * generated names (KSTREAM-FILTER-0000000003) are deterministic per builder.
 */
export class InternalStreamsBuilder {
  readonly topology = new InternalTopologyBuilder();
  private index = 0;

  newProcessorName(prefix: string): string {
    return `${prefix}${String(this.index++).padStart(10, '0')}`;
  }

  newStoreName(prefix: string): string {
    return `${prefix}STATE-STORE-${String(this.index++).padStart(10, '0')}`;
  }

  /** The user's name, or a generated one. */
  nameOr(given: string | undefined, prefix: string): string {
    if (given === undefined) return this.newProcessorName(prefix);
    if (typeof given !== 'string' || given.length === 0) {
      throw new TopologyError(`A name given to ${prefix.replace(/-$/, '')} must be a non-empty string`);
    }
    return given;
  }

  addProcessor(name: string, supplier: () => AnyProcessor, parents: readonly string[]): string {
    this.topology.addProcessor(name, supplier, parents);
    return name;
  }

  addKeyValueStore(
    storeName: string,
    keySerde: Serde<unknown> | undefined,
    valueSerde: Serde<unknown> | undefined,
    loggingEnabled: boolean | undefined,
    processorName: string,
    timestamped = false,
  ): void {
    const builder = timestamped
      ? timestampedKeyValueStoreBuilder(storeName, keySerde, valueSerde)
      : Stores.keyValueStoreBuilder(storeName, keySerde, valueSerde);
    this.addStateStore(builder, loggingEnabled, processorName);
  }

  /**
   * A table read from a topic is cached as Kafka Streams caches it: only when it is queryable,
   * i.e. its store is named by the user (and caching is not turned off).
   */
  cacheQueryableStore(materialized: { storeName?: string; cachingEnabled?: boolean }): void {
    if (materialized.storeName !== undefined && materialized.cachingEnabled !== false)
      this.topology.enableCaching(materialized.storeName);
  }

  /** Adds a store to the topology, connected to the processor that owns it. */
  addStateStore(builder: StoreBuilder, loggingEnabled: boolean | undefined, processorName: string): void {
    this.topology.addStateStore(loggingEnabled === false ? builder.withLoggingDisabled() : builder, [
      processorName,
    ]);
  }

  /**
   * Adds sink -> `<name>-repartition` -> source and returns the source's name. `dropNullKeys` adds
   * a filter in front: as in Kafka Streams, a record with a null key never reaches a repartition
   * topic (KIP-962 keeps them only where a left or outer join follows: the joins pass false).
   * KTable.groupBy passes false: its mapper already skips them. `join`: a join's or
   * KStream.repartition's topic as Kafka Streams builds it (createRepartitionedSource), so that
   * describe() shows the same nodes:
   * always a filter (passing null keys on for a left or outer join), and, when the topic's name is
   * the user's rather than a generated node name, nodes `<topic>-sink`, `-filter` and `-source`
   * (the generated names are still taken, so that later ones stay the same as Kafka Streams').
   * `topicSettings`: Repartitioned's partition count and partitioner for the topic.
   */
  addRepartition(
    parent: string,
    topicBase: string,
    serdes: {
      keySerde: AnySerde | undefined;
      valueSerde: AnySerde | undefined;
      valueSerdeWrapper?: SerdeWrapper;
    },
    dropNullKeys: boolean | (() => boolean),
    join = false,
    topicSettings: RepartitionTopicSettings = {},
  ): string {
    const topic = `${topicBase}-repartition`;
    let sinkName = this.newProcessorName('KSTREAM-SINK-');
    const needsFilter = dropNullKeys === true || join;
    let filterName = needsFilter ? this.newProcessorName('KSTREAM-FILTER-') : undefined;
    let sourceName = this.newProcessorName('KSTREAM-SOURCE-');
    if (join && !/^KSTREAM.*-[0-9]{10}$/.test(topicBase)) {
      sinkName = `${topic}-sink`;
      filterName = `${topic}-filter`;
      sourceName = `${topic}-source`;
    }
    let upstream = parent;
    if (filterName !== undefined) {
      upstream = this.addProcessor(
        filterName,
        () =>
          (typeof dropNullKeys === 'function' ? dropNullKeys() : dropNullKeys)
            ? new DropNullKeyProcessor()
            : new PassThroughProcessor(),
        [parent],
      );
    }
    this.topology.addInternalTopic(topic);
    if (topicSettings.numberOfPartitions !== undefined)
      this.topology.fixedPartitionCounts.set(topic, topicSettings.numberOfPartitions);
    this.topology.addSink(sinkName, topic, [upstream], serdes, topicSettings.partitioner);
    this.topology.addSource(sourceName, [topic], serdes);
    return sourceName;
  }

  /**
   * Kafka Streams' repartitionForJoin: a re-keyed stream's repartition for a join, `<name>-repartition`
   * with the join's name, else `<stream node>-repartition`. A stream repartitioned under its own
   * node name keeps that repartition for its later joins (a self-join, or two joins of one
   * re-keyed stream), as Kafka Streams keeps one repartition node per stream; the names a new one
   * would have had are still taken. Null keys pass when any of those joins is a left or outer one
   * (KIP-962); an inner join drops them itself.
   */
  repartitionForJoin(
    stream: { readonly nodeName: string; joinRepartition?: JoinRepartition },
    name: string | undefined,
    serdes: { keySerde: AnySerde | undefined; valueSerde: AnySerde | undefined },
    keepNullKeys: boolean,
  ): string {
    const existing = name === undefined ? stream.joinRepartition : undefined;
    if (existing !== undefined) {
      for (const prefix of ['KSTREAM-SINK-', 'KSTREAM-FILTER-', 'KSTREAM-SOURCE-'])
        this.newProcessorName(prefix);
      if (keepNullKeys) existing.filter.dropNullKeys = false;
      return existing.source;
    }
    const filter = { dropNullKeys: !keepNullKeys };
    const source = this.addRepartition(
      stream.nodeName,
      name ?? stream.nodeName,
      serdes,
      () => filter.dropNullKeys,
      true,
    );
    if (name === undefined) stream.joinRepartition = { source, filter };
    return source;
  }
}

/** A stream's repartition for joins, shared by its later joins (see repartitionForJoin). */
export interface JoinRepartition {
  readonly source: string;
  /** Read when the tasks are built, after every join had its say. */
  readonly filter: { dropNullKeys: boolean };
}

/** What Repartitioned sets on its topic: a partition count of its own, a StreamPartitioner. */
export interface RepartitionTopicSettings {
  readonly numberOfPartitions?: number | undefined;
  readonly partitioner?: SinkPartitioner | undefined;
}

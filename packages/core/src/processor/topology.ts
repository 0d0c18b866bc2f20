import type { Serde } from '../serdes/serde.ts';
import type { StoreBuilder } from '../state/store-builder.ts';
import type { AutoOffsetResetLike } from './auto-offset-reset.ts';
import {
  type AnySerde,
  InternalTopologyBuilder,
  type SubtopologyInfo,
} from './internals/internal-topology-builder.ts';
import { sinkPartitioner } from './internals/sink-partitioner.ts';
import type { ProcessorSupplier } from './processor.ts';
import { sourceSettings } from './source-settings.ts';
import { checkStreamPartitioner, type StreamPartitioner } from './stream-partitioner.ts';
import type { TimestampExtractorLike } from './timestamp-extractor.ts';
import type { TopicNameExtractor } from './topic-name-extractor.ts';
import { describeTopology, type TopologyDescription } from './topology-description.ts';

export interface SourceOptions<K, V> {
  keySerde?: Serde<K>;
  valueSerde?: Serde<V>;
  /** Kafka Streams' addSource(..., TimestampExtractor, ...); default: the config's. */
  timestampExtractor?: TimestampExtractorLike;
  /** Kafka Streams' addSource(AutoOffsetReset, ...); default: the config's autoOffsetReset. */
  offsetResetPolicy?: AutoOffsetResetLike;
}

export interface SinkOptions<K, V> {
  keySerde?: Serde<K>;
  valueSerde?: Serde<V>;
  /** Kafka Streams' addSink(..., StreamPartitioner, ...): the partition(s) each record goes to. */
  streamPartitioner?: StreamPartitioner<K, V>;
}

/**
 * A processor graph: sources, processors, sinks and state stores (the Processor API). Also what
 * `StreamsBuilder.build()` returns. The graph is validated when first described or run.
 */
export class Topology {
  /** @internal The graph, shared with the DSL, the StreamTask and the runtime. */
  readonly internalBuilder: InternalTopologyBuilder;

  constructor(internalBuilder: InternalTopologyBuilder = new InternalTopologyBuilder()) {
    this.internalBuilder = internalBuilder;
  }

  /**
   * A source reading `topics`, or every topic whose whole name matches a RegExp (Kafka Streams'
   * addSource(Pattern)); matching topics created while the app runs join at the next metadata
   * refresh (`metadataMaxAgeMs`).
   */
  addSource<K, V>(
    name: string,
    topics: string | readonly string[] | RegExp,
    options: SourceOptions<K, V> = {},
  ): this {
    this.internalBuilder.addSource(
      name,
      typeof topics === 'string' ? [topics] : topics,
      {
        keySerde: options.keySerde as AnySerde | undefined,
        valueSerde: options.valueSerde as AnySerde | undefined,
      },
      sourceSettings(name, options),
    );
    return this;
  }

  addProcessor<KIn, VIn, KOut, VOut>(
    name: string,
    supplier: ProcessorSupplier<KIn, VIn, KOut, VOut>,
    ...parentNames: string[]
  ): this {
    this.internalBuilder.addProcessor(name, supplier, parentNames);
    return this;
  }

  addSink<K, V>(
    name: string,
    topic: string | TopicNameExtractor<K, V>,
    options: SinkOptions<K, V> | undefined,
    ...parentNames: string[]
  ): this {
    checkStreamPartitioner(options?.streamPartitioner, `sink ${name}`);
    this.internalBuilder.addSink(
      name,
      topic as string | TopicNameExtractor<unknown, unknown>,
      parentNames,
      {
        keySerde: options?.keySerde as AnySerde | undefined,
        valueSerde: options?.valueSerde as AnySerde | undefined,
      },
      sinkPartitioner(options?.streamPartitioner as StreamPartitioner<unknown, unknown> | undefined, name),
    );
    return this;
  }

  addStateStore<K, V>(storeBuilder: StoreBuilder<K, V>, ...processorNames: string[]): this {
    this.internalBuilder.addStateStore(storeBuilder as StoreBuilder, processorNames);
    return this;
  }

  connectProcessorAndStateStores(processorName: string, ...storeNames: string[]): this {
    this.internalBuilder.connectProcessorAndStateStores([processorName], storeNames);
    return this;
  }

  /** Throws TopologyError if the graph cannot run (unknown parents or stores, cycles, unused stores). */
  validate(): this {
    this.internalBuilder.validate();
    return this;
  }

  /** The graph as Kafka Streams prints it (`toString()`), or as Mermaid (`toMermaid()`). */
  describe(): TopologyDescription {
    return describeTopology(this.internalBuilder);
  }

  /**
   * The sub-topologies with internal topic names resolved for `applicationId`:
   * `<applicationId>-<name>-repartition`, `<applicationId>-<store>-changelog`.
   */
  subtopologies(applicationId: string): SubtopologyInfo[] {
    return this.internalBuilder.subtopologies(applicationId);
  }
}

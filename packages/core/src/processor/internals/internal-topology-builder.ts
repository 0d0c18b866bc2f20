import { TopologyError } from '../../errors.ts';
import type { Serde } from '../../serdes/serde.ts';
import type { DslStoreFormat, StoreBuilder } from '../../state/store-builder.ts';
import { isVersionedBuilder } from '../../state/versioned-store-builder.ts';
import type { AutoOffsetReset } from '../auto-offset-reset.ts';
import type { Processor } from '../processor.ts';
import type { TimestampExtractor } from '../timestamp-extractor.ts';
import type { TopicNameExtractor } from '../topic-name-extractor.ts';
import { PatternSources } from './pattern-sources.ts';
import type { SinkPartitioner } from './sink-partitioner.ts';
import { groupSubtopologies, upstreamSourceTopics } from './subtopology-grouping.ts';
import { checkGraph } from './topology-checks.ts';

// biome-ignore lint/suspicious/noExplicitAny: the graph stores processors of every record type
export type AnyProcessor = Processor<any, any, any, any>;
export type AnySerde = Serde<unknown>;
/** Wraps the resolved serde, e.g. to carry a KTable's old and new value through a topic. */
export type SerdeWrapper = (inner: AnySerde) => AnySerde;
export type { SinkPartitioner };

interface NodeBase {
  readonly name: string;
  /** Insertion order; sub-topology ids follow it. */
  readonly order: number;
}

export interface SourceNodeDef extends NodeBase {
  readonly kind: 'source';
  /** A pattern source's: the matching topics found so far (see matchPatternTopics). */
  readonly topics: readonly string[];
  /** Kafka Streams' addSource(Pattern): the source reads every topic whose whole name matches. */
  readonly pattern?: RegExp | undefined;
  readonly keySerde: AnySerde | undefined;
  readonly valueSerde: AnySerde | undefined;
  readonly valueSerdeWrapper: SerdeWrapper | undefined;
  /** Consumed's withTimestampExtractor; undefined: the config's defaultTimestampExtractor. */
  readonly timestampExtractor?: TimestampExtractor | undefined;
  /** Consumed's withOffsetResetPolicy; undefined: the config's autoOffsetReset. */
  readonly offsetResetPolicy?: AutoOffsetReset | undefined;
}

/** What a source sets besides its serdes (Kafka Streams' Consumed). */
export interface SourceSettings {
  timestampExtractor?: TimestampExtractor | undefined;
  offsetResetPolicy?: AutoOffsetReset | undefined;
}

export interface ProcessorNodeDef extends NodeBase {
  readonly kind: 'processor';
  readonly supplier: () => AnyProcessor;
  readonly parents: readonly string[];
  readonly stores: string[];
}

export interface SinkNodeDef extends NodeBase {
  readonly kind: 'sink';
  readonly topic: string | TopicNameExtractor<unknown, unknown>;
  readonly keySerde: AnySerde | undefined;
  readonly valueSerde: AnySerde | undefined;
  readonly valueSerdeWrapper: SerdeWrapper | undefined;
  readonly parents: readonly string[];
  readonly partitioner?: SinkPartitioner | undefined;
}

export type NodeDef = SourceNodeDef | ProcessorNodeDef | SinkNodeDef;

export interface SerdeOptions {
  keySerde?: AnySerde | undefined;
  valueSerde?: AnySerde | undefined;
  /** Internal: applied to the resolved value serde. */
  valueSerdeWrapper?: SerdeWrapper | undefined;
}

/** A connected part of the graph: the unit of tasks. */
export interface SubtopologyNodes {
  readonly id: number;
  /** In insertion order. */
  readonly nodes: readonly NodeDef[];
  readonly stores: readonly StoreBuilder[];
}

/** What the runtime needs to know of a sub-topology, internal topic names resolved. */
export interface SubtopologyInfo {
  id: number;
  /** Includes the repartition source topics. */
  sourceTopics: string[];
  repartitionSourceTopics: string[];
  /** Static sink topics (dynamic topic extractors are not listed); includes repartition sinks. */
  sinkTopics: string[];
  repartitionSinkTopics: string[];
  /** `retentionMs`: a window or session store's, which its changelog keeps (plus a day) besides compacting. */
  stores: Array<{
    name: string;
    changelogTopic: string | null;
    retentionMs?: number;
    retainDuplicates?: boolean;
    /** A versioned store's history retention: its compacted changelog keeps older puts that long. */
    historyRetentionMs?: number;
  }>;
}

export function repartitionTopicName(applicationId: string, name: string): string {
  return `${applicationId}-${name}`;
}

export function changelogTopicName(applicationId: string, storeName: string): string {
  return `${applicationId}-${storeName}-changelog`;
}

/**
 * The processor graph as added by `Topology` (Processor API) and `StreamsBuilder` (DSL).
 * Names and topics are checked when added; the graph as a whole (parents, stores, cycles) when it
 * is first used, so that nodes may name parents added later.
 */
export class InternalTopologyBuilder {
  private readonly nodes = new Map<string, NodeDef>();
  private readonly topicToSource = new Map<string, string>();
  private readonly storeBuilders = new Map<string, StoreBuilder>();
  /** The DSL stores with a record cache (Materialized's caching, on unless turned off). */
  private readonly cachedStores = new Set<string>();
  /** Raw names (`<name>-repartition`) of topics that get the application id as prefix. */
  private readonly internalTopics = new Set<string>();
  /** Repartition topics with their own partition count (Repartitioned.withNumberOfPartitions), by name. */
  readonly fixedPartitionCounts = new Map<string, number>();
  private nextOrder = 0;
  private groups: SubtopologyNodes[] | undefined;
  /** Nodes and stores of global tables: in no sub-topology (no tasks), run by the global thread. */
  private readonly globalNodes = new Set<string>();
  private readonly globalStores = new Set<string>();
  private readonly globalStoreTopics = new Map<string, string>();
  /** Node names whose source topics must be co-partitioned (the inputs of a join). */
  private readonly copartitionNodeGroups: string[][] = [];
  private readonly patternSources = new PatternSources();

  addSource(
    name: string,
    topics: readonly string[] | RegExp,
    serdes: SerdeOptions = {},
    settings: SourceSettings = {},
  ): void {
    this.requireNewName(name);
    if (topics instanceof RegExp) {
      this.patternSources.add(name, topics, this.topicToSource.keys());
    } else {
      if (topics.length === 0) throw new TopologyError(`Source ${name} must read at least one topic`);
      for (const topic of topics) {
        if (typeof topic !== 'string' || topic.length === 0) {
          throw new TopologyError(`Source ${name} has an empty topic name`);
        }
        const owner = this.topicToSource.get(topic);
        if (owner !== undefined || topics.indexOf(topic) !== topics.lastIndexOf(topic)) {
          throw new TopologyError(
            `Topic '${topic}' is already read by source ${owner ?? name}; read each topic with one source ` +
              `(use one stream() and share the KStream, or merge()).`,
          );
        }
        this.patternSources.requireUnmatched(name, topic);
      }
    }
    this.addNode({
      kind: 'source',
      name,
      order: this.nextOrder,
      topics: topics instanceof RegExp ? [] : [...topics],
      pattern: topics instanceof RegExp ? topics : undefined,
      keySerde: serdes.keySerde,
      valueSerde: serdes.valueSerde,
      valueSerdeWrapper: serdes.valueSerdeWrapper,
      timestampExtractor: settings.timestampExtractor,
      offsetResetPolicy: settings.offsetResetPolicy,
    });
    if (!(topics instanceof RegExp)) for (const topic of topics) this.topicToSource.set(topic, name);
  }

  /** Whether a source reads topics by pattern (the runtime then refreshes its topics). */
  hasPatternSources(): boolean {
    return this.patternSources.size > 0;
  }

  /**
   * Adds each topic that a pattern source matches, and no source reads yet, to that source's
   * topics (Kafka Streams' updateSubscribedTopics); returns the topics added.
   */
  matchPatternTopics(topicNames: Iterable<string>): string[] {
    const found = this.patternSources.match(topicNames, (topic) => this.topicToSource.has(topic));
    for (const [source, topic] of found) {
      const node = this.nodes.get(source) as SourceNodeDef;
      this.nodes.set(source, { ...node, topics: [...node.topics, topic] });
      this.topicToSource.set(topic, source);
    }
    if (found.length > 0) this.groups = undefined;
    return found.map(([, topic]) => topic);
  }

  addProcessor(name: string, supplier: () => AnyProcessor, parents: readonly string[]): void {
    if (typeof supplier !== 'function') {
      throw new TopologyError(`Processor ${name} needs a supplier: a function returning a new processor`);
    }
    this.requireParents('Processor', name, parents);
    this.addNode({
      kind: 'processor',
      name,
      order: this.nextOrder,
      supplier,
      parents: [...parents],
      stores: [],
    });
  }

  addSink(
    name: string,
    topic: string | TopicNameExtractor<unknown, unknown>,
    parents: readonly string[],
    serdes: SerdeOptions = {},
    partitioner?: SinkPartitioner,
  ): void {
    if (typeof topic === 'string' && topic.length === 0)
      throw new TopologyError(`Sink ${name} has an empty topic`);
    this.requireParents('Sink', name, parents);
    this.addNode({
      kind: 'sink',
      name,
      order: this.nextOrder,
      topic,
      keySerde: serdes.keySerde,
      valueSerde: serdes.valueSerde,
      valueSerdeWrapper: serdes.valueSerdeWrapper,
      parents: [...parents],
      partitioner,
    });
  }

  addStateStore(builder: StoreBuilder, processorNames: readonly string[] = []): void {
    if (this.storeBuilders.has(builder.name)) {
      throw new TopologyError(`State store '${builder.name}' is already added; give each store its own name`);
    }
    this.storeBuilders.set(builder.name, builder);
    this.groups = undefined;
    this.connectProcessorAndStateStores(processorNames, [builder.name]);
  }

  /** Connections are checked by `validate()`, since the processor may come later. */
  connectProcessorAndStateStores(processorNames: readonly string[], storeNames: readonly string[]): void {
    for (const processorName of processorNames) {
      const node = this.nodes.get(processorName);
      if (node === undefined) {
        throw new TopologyError(`Cannot connect state stores to unknown processor ${processorName}`);
      }
      if (node.kind !== 'processor') {
        throw new TopologyError(
          `Cannot connect state stores to ${node.kind} ${processorName}: only processors use stores`,
        );
      }
      for (const store of storeNames) if (!node.stores.includes(store)) node.stores.push(store);
    }
    this.groups = undefined;
  }

  /**
   * Makes a source, its processors and their store a global store (Kafka Streams' addGlobalStore):
   * kept out of the sub-topologies, maintained by the global stream thread from all partitions of
   * the source's topic, readable by every task's processors without being connected to them.
   */
  markGlobal(nodeNames: readonly string[], storeName: string): void {
    for (const name of nodeNames) this.globalNodes.add(name);
    this.globalStores.add(storeName);
    const source = nodeNames.map((n) => this.nodes.get(n)).find((n) => n?.kind === 'source');
    if (source?.kind === 'source' && source.topics[0] !== undefined)
      this.globalStoreTopics.set(storeName, source.topics[0]);
    this.groups = undefined;
  }

  /** The topic a global store is read from: its changelog, as Kafka Streams' GlobalStateManager has it. */
  globalStoreTopic(storeName: string): string | undefined {
    return this.globalStoreTopics.get(storeName);
  }

  isGlobalStore(name: string): boolean {
    return this.globalStores.has(name);
  }

  /** The global stores' nodes and stores (Kafka Streams' global sub-topology), or undefined. */
  globalSubtopology(): SubtopologyNodes | undefined {
    this.computeGroups();
    if (this.globalNodes.size === 0) return undefined;
    const nodes = [...this.nodes.values()].filter((n) => this.globalNodes.has(n.name));
    return { id: -1, nodes, stores: [...this.globalStores].map((name) => this.storeBuilders.get(name)!) };
  }

  /** The topics the global stores are restored from and kept current with. */
  globalSourceTopics(): string[] {
    return this.globalSubtopology()?.nodes.flatMap((n) => (n.kind === 'source' ? n.topics : [])) ?? [];
  }

  /** The source topics upstream of these nodes must have one partition count (a join's inputs). */
  addCopartitionGroup(nodeNames: readonly string[]): void {
    this.copartitionNodeGroups.push([...nodeNames]);
  }

  /** Each co-partition group as the topics (resolved) of the sources upstream of its nodes. */
  copartitionGroups(applicationId: string): string[][] {
    return this.copartitionNodeGroups.map((names) =>
      upstreamSourceTopics(this.nodes, names).map((topic) => this.resolveTopic(applicationId, topic)),
    );
  }

  /** Marks `<name>` (e.g. `counts-repartition`) as internal: resolved to `<applicationId>-<name>`. */
  addInternalTopic(name: string): void {
    this.internalTopics.add(name);
  }

  isInternalTopic(name: string): boolean {
    return this.internalTopics.has(name);
  }

  hasNode(name: string): boolean {
    return this.nodes.has(name);
  }

  node(name: string): NodeDef | undefined {
    return this.nodes.get(name);
  }

  /** Kafka Streams' withCachingEnabled: the store's operator forwards through a record cache. */
  enableCaching(storeName: string): void {
    this.cachedStores.add(storeName);
  }

  cachingEnabled(storeName: string): boolean {
    return this.cachedStores.has(storeName);
  }

  storeBuilder(name: string): StoreBuilder | undefined {
    return this.storeBuilders.get(name);
  }

  /**
   * Kafka Streams' `dsl.store.format` (KIP-1285), applied when an app or a test driver takes the
   * topology (as Kafka Streams configures its store factories then): each DSL store that follows
   * it is rebuilt in that format.
   */
  applyDslStoreFormat(format: DslStoreFormat): void {
    for (const [name, builder] of this.storeBuilders) {
      const next = builder.withDslStoreFormat?.(format);
      if (next !== undefined && next !== builder) this.storeBuilders.set(name, next);
    }
    this.groups = undefined;
  }

  hasStore(name: string): boolean {
    return this.storeBuilders.has(name);
  }

  /** Source and sink topic as the runtime sees it. */
  resolveTopic(applicationId: string, topic: string): string {
    return this.internalTopics.has(topic) ? repartitionTopicName(applicationId, topic) : topic;
  }

  /** Checks the whole graph; throws TopologyError naming the first bad node, store or topic. */
  validate(): void {
    this.computeGroups();
  }

  /** The sub-topologies, validated. */
  subtopologyNodes(): readonly SubtopologyNodes[] {
    return this.computeGroups();
  }

  subtopologies(applicationId: string): SubtopologyInfo[] {
    return this.computeGroups().map((group) => {
      const sourceTopics: string[] = [];
      const repartitionSourceTopics: string[] = [];
      const sinkTopics: string[] = [];
      const repartitionSinkTopics: string[] = [];
      for (const node of group.nodes) {
        if (node.kind === 'source') {
          for (const topic of node.topics) {
            const resolved = this.resolveTopic(applicationId, topic);
            sourceTopics.push(resolved);
            if (this.internalTopics.has(topic)) repartitionSourceTopics.push(resolved);
          }
        } else if (node.kind === 'sink' && typeof node.topic === 'string') {
          const resolved = this.resolveTopic(applicationId, node.topic);
          if (!sinkTopics.includes(resolved)) sinkTopics.push(resolved);
          if (this.internalTopics.has(node.topic) && !repartitionSinkTopics.includes(resolved)) {
            repartitionSinkTopics.push(resolved);
          }
        }
      }
      return {
        id: group.id,
        sourceTopics,
        repartitionSourceTopics,
        sinkTopics,
        repartitionSinkTopics,
        stores: group.stores.map((store) => ({
          name: store.name,
          changelogTopic: store.loggingEnabled ? changelogTopicName(applicationId, store.name) : null,
          ...(store.retentionMs === undefined ? {} : { retentionMs: store.retentionMs }),
          ...(store.retainDuplicates === true ? { retainDuplicates: true } : {}),
          ...(isVersionedBuilder(store) ? { historyRetentionMs: store.versioned.historyRetentionMs } : {}),
        })),
      };
    });
  }

  /** Children of every node, in insertion order. */
  childrenOf(name: string): string[] {
    const children: string[] = [];
    for (const node of this.nodes.values()) {
      if (node.kind !== 'source' && node.parents.includes(name)) children.push(node.name);
    }
    return children;
  }

  private requireParents(kind: string, name: string, parents: readonly string[]): void {
    this.requireNewName(name);
    if (parents.length === 0) {
      throw new TopologyError(`${kind} ${name} has no upstream node: name at least one parent`);
    }
    if (parents.includes(name)) throw new TopologyError(`${kind} ${name} names itself as a parent (a cycle)`);
  }

  private requireNewName(name: string): void {
    if (typeof name !== 'string' || name.length === 0) {
      throw new TopologyError('A node name must be a non-empty string');
    }
    if (this.nodes.has(name)) {
      throw new TopologyError(`Node name ${name} is used twice; give each node its own name`);
    }
  }

  private addNode(node: NodeDef): void {
    this.requireNewName(node.name);
    this.nodes.set(node.name, node);
    this.nextOrder += 1;
    this.groups = undefined;
  }

  private computeGroups(): SubtopologyNodes[] {
    if (this.groups !== undefined) return this.groups;
    checkGraph(this.nodes, this.storeBuilders);
    this.groups = groupSubtopologies(this.nodes, this.storeBuilders, this.globalNodes, this.globalStores);
    return this.groups;
  }
}

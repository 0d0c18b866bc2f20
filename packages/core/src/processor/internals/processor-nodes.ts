// The nodes of a task's processor graph, built from the topology's node definitions: Kafka Streams'
// SourceNode, ProcessorNode and SinkNode. The task routes records between them.
import type { TopicPartition } from '@kstreams/state-store';
import { StreamsError } from '../../errors.ts';
import { type AsyncProcessor, asyncOptionsOf, type ResolvedAsyncOptions } from '../async-processor.ts';
import type { Record } from '../record.ts';
import type { TopicNameExtractor } from '../topic-name-extractor.ts';
import { AsyncLane } from './async-lane.ts';
import type {
  AnyProcessor,
  AnySerde,
  InternalTopologyBuilder,
  NodeDef,
  SinkPartitioner,
} from './internal-topology-builder.ts';
import { wholeTopicPattern } from './pattern-sources.ts';
import { isPromise } from './pending-work.ts';
import { ProcessorContextImpl, type RuntimeNodeRef, type TaskServices } from './processor-context-impl.ts';
import type { InputRecord } from './records.ts';
import { type DefaultSerdes, resolveSerde } from './serde-resolver.ts';
import type { SourceTimestamps, TimestampedSource } from './source-timestamps.ts';
import type { TaskAsyncWork } from './task-async-work.ts';

export abstract class RuntimeNode implements RuntimeNodeRef {
  children: RuntimeNode[] = [];
  readonly childByName = new Map<string, RuntimeNode>();
  constructor(readonly name: string) {}
  abstract process(record: Record<unknown, unknown>): void | Promise<void>;
}

export class SourceRuntimeNode extends RuntimeNode implements TimestampedSource {
  /** By topic, when the source's extractor is not the default's fast path (source-timestamps.ts). */
  timestamps: Map<string, SourceTimestamps> | undefined = undefined;

  constructor(
    name: string,
    readonly keySerde: AnySerde,
    readonly valueSerde: AnySerde,
    private readonly task: TaskServices,
  ) {
    super(name);
  }

  process(record: Record<unknown, unknown>): void {
    this.task.forward(this, record);
  }
}

export class ProcessorRuntimeNode extends RuntimeNode {
  readonly context: ProcessorContextImpl;

  constructor(
    name: string,
    readonly processor: AnyProcessor,
    readonly storeNames: ReadonlySet<string>,
    services: TaskServices,
  ) {
    super(name);
    this.context = this.createContext(services);
  }

  protected createContext(services: TaskServices): ProcessorContextImpl {
    return new ProcessorContextImpl(services, this);
  }

  /** Throws unless the processor was connected to the store. */
  checkStoreAccess(storeName: string): void {
    if (this.storeNames.has(storeName)) return;
    throw new StreamsError(
      `Processor ${this.name} has no access to state store '${storeName}': connect them ` +
        `(addStateStore(builder, '${this.name}'), connectProcessorAndStateStores, or process(supplier, '${storeName}'))`,
    );
  }

  /** The asynchronous process() still running, if any. */
  private inFlight: Promise<void> | undefined;

  /**
   * One record at a time, as in Kafka Streams: a record that reaches an asynchronous processor
   * while it still works on the previous one (several records forwarded by one flatMap, say)
   * waits its turn, else both would read the store before either wrote it.
   */
  process(record: Record<unknown, unknown>): void | Promise<void> {
    if (this.inFlight !== undefined) {
      return this.running(this.inFlight.then(() => this.processor.process(record)));
    }
    const result = this.processor.process(record);
    return isPromise(result) ? this.running(result) : result;
  }

  private running(work: Promise<void>): Promise<void> {
    const settled = work.then(ignore, ignore);
    this.inFlight = settled;
    void settled.then(() => {
      if (this.inFlight === settled) this.inFlight = undefined;
    });
    return work;
  }
}

function ignore(): void {}

/**
 * An asynchronous processor's node: a record goes into the node's AsyncLane and the task moves on;
 * the lane forwards the results later, with the input record as the task's current record.
 */
export class AsyncProcessorRuntimeNode extends ProcessorRuntimeNode {
  lane!: AsyncLane;

  /** The lane's processor forwards by returning records: a forward through the context is a mistake. */
  protected override createContext(services: TaskServices): ProcessorContextImpl {
    const node = this;
    return new (class extends ProcessorContextImpl {
      override forward(record: Record<unknown, unknown>, childName?: string): void {
        if (!node.lane.emitting) {
          throw new StreamsError(
            `Async processor ${node.name} called context.forward(): an async processor forwards by ` +
              'returning its records from process() (its context is shared by the calls in flight)',
          );
        }
        super.forward(record, childName);
      }
    })(services, this);
  }

  override process(record: Record<unknown, unknown>): void {
    this.lane.submit(record, this.input());
  }

  constructor(
    name: string,
    processor: AnyProcessor,
    storeNames: ReadonlySet<string>,
    services: TaskServices,
    options: ResolvedAsyncOptions,
    work: TaskAsyncWork,
    private readonly input: () => InputRecord | undefined,
  ) {
    super(name, processor, storeNames, services);
    const forward = (r: Record<unknown, unknown>) => this.context.forward(r);
    this.lane = new AsyncLane(
      name,
      processor as AsyncProcessor<unknown, unknown, unknown, unknown>,
      options,
      work,
      forward,
    );
    work.add(this.lane);
  }
}

/** What a sink needs from its task: the topic is resolved there, since an extractor sees the input record. */
export interface SinkTarget {
  sendFromSink(sink: SinkRuntimeNode, record: Record<unknown, unknown>): void;
}

export class SinkRuntimeNode extends RuntimeNode {
  constructor(
    name: string,
    /** Resolved (internal topics prefixed) or an extractor. */
    readonly topic: string | TopicNameExtractor<unknown, unknown>,
    readonly keySerde: AnySerde,
    readonly valueSerde: AnySerde,
    private readonly task: SinkTarget,
    readonly partitioner?: SinkPartitioner,
  ) {
    super(name);
  }

  process(record: Record<unknown, unknown>): void {
    this.task.sendFromSink(this, record);
  }

  /** The sink's topic, or its extractor's choice given the record and the input record's context. */
  topicOf(record: Record<unknown, unknown>, input: InputRecord | undefined): string {
    if (typeof this.topic === 'string') return this.topic;
    return this.topic(record.key, record.value, {
      topic: input?.topic,
      partition: input?.partition,
      offset: input?.offset,
      timestamp: record.timestamp,
      headers: record.headers,
    });
  }
}

/**
 * The task's sources by topic; a topic that matches a pattern source and is not listed yet (a
 * driver's input topic, named only when piped to) is found through the pattern.
 */
class SourcesByTopic extends Map<string, SourceRuntimeNode> {
  constructor(private readonly patterns: ReadonlyArray<{ name: string; whole: RegExp }>) {
    super();
  }

  override get(topic: string): SourceRuntimeNode | undefined {
    const found = super.get(topic);
    if (found !== undefined || this.patterns.length === 0) return found;
    const pattern = this.patterns.find((p) => p.whole.test(topic));
    if (pattern === undefined) return undefined;
    const node = this.patternNodes.get(pattern.name);
    if (node !== undefined) {
      this.set(topic, node);
      this.onJoin?.(topic, node);
    }
    return node;
  }

  /** Set by the task: gives a joining topic what its source needs per topic (its timestamps). */
  onJoin: ((topic: string, node: SourceRuntimeNode) => void) | undefined = undefined;

  /** Pattern sources that read no topic yet. */
  readonly patternNodes = new Map<string, SourceRuntimeNode>();
}

export interface TaskGraph {
  /** By resolved topic name. */
  readonly sources: Map<string, SourceRuntimeNode>;
  /** In insertion order: init() and close() follow it. */
  readonly processors: ProcessorRuntimeNode[];
  /** Partition `partition` of each source topic, in source order. */
  readonly inputPartitions: TopicPartition[];
}

export interface TaskGraphContext extends DefaultSerdes {
  readonly builder: InternalTopologyBuilder;
  readonly applicationId: string;
  readonly partition: number;
  readonly task: TaskServices & SinkTarget;
  /** The task's asynchronous work and its current input record, for asynchronous processors. */
  readonly async?: { work: TaskAsyncWork; input: () => InputRecord | undefined };
}

/** Fresh nodes (and processor instances) for one task, linked parent to child. */
export function buildTaskGraph(defs: readonly NodeDef[], ctx: TaskGraphContext): TaskGraph {
  const patterns = defs.flatMap((d) =>
    d.kind === 'source' && d.pattern !== undefined
      ? [{ name: d.name, whole: wholeTopicPattern(d.pattern) }]
      : [],
  );
  const graph: TaskGraph = { sources: new SourcesByTopic(patterns), processors: [], inputPartitions: [] };
  const nodes = new Map<string, RuntimeNode>();
  for (const def of defs) nodes.set(def.name, createNode(def, ctx, graph));
  for (const def of defs) {
    if (def.kind === 'source') continue;
    const node = nodes.get(def.name)!;
    for (const parentName of def.parents) {
      const parent = nodes.get(parentName)!;
      parent.children.push(node);
      parent.childByName.set(node.name, node);
    }
  }
  return graph;
}

function createNode(def: NodeDef, ctx: TaskGraphContext, graph: TaskGraph): RuntimeNode {
  const { builder, applicationId, task } = ctx;
  switch (def.kind) {
    case 'source': {
      const node = new SourceRuntimeNode(
        def.name,
        resolveSerde(ctx, def.keySerde, 'key', `source ${def.name}`),
        resolveSerde(ctx, def.valueSerde, 'value', `source ${def.name}`, def.valueSerdeWrapper),
        task,
      );
      if (def.pattern !== undefined) (graph.sources as SourcesByTopic).patternNodes.set(def.name, node);
      for (const topic of def.topics) {
        const resolved = builder.resolveTopic(applicationId, topic);
        graph.sources.set(resolved, node);
        graph.inputPartitions.push({ topic: resolved, partition: ctx.partition });
      }
      return node;
    }
    case 'processor': {
      const processor = def.supplier();
      if (processor === null || typeof processor !== 'object' || typeof processor.process !== 'function') {
        throw new StreamsError(
          `The supplier of processor ${def.name} must return a new object with process()`,
        );
      }
      const asyncOptions = asyncOptionsOf(processor);
      const stores = new Set(def.stores);
      if (asyncOptions !== undefined && ctx.async === undefined)
        throw new StreamsError(
          `Processor ${def.name} is asynchronous, which a global store's processor cannot be`,
        );
      const node =
        asyncOptions === undefined
          ? new ProcessorRuntimeNode(def.name, processor, stores, task)
          : new AsyncProcessorRuntimeNode(
              def.name,
              processor,
              stores,
              task,
              asyncOptions,
              ctx.async!.work,
              ctx.async!.input,
            );
      graph.processors.push(node);
      return node;
    }
    case 'sink':
      return new SinkRuntimeNode(
        def.name,
        typeof def.topic === 'string' ? builder.resolveTopic(applicationId, def.topic) : def.topic,
        resolveSerde(ctx, def.keySerde, 'key', `sink ${def.name}`),
        resolveSerde(ctx, def.valueSerde, 'value', `sink ${def.name}`, def.valueSerdeWrapper),
        task,
        def.partitioner,
      );
  }
}

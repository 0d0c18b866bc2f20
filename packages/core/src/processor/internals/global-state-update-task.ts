// Kafka Streams' GlobalStateUpdateTask and GlobalStateManager in one: the global stores' processors
// (a source and the table-source processor per global table), their stores, and the offsets of
// every partition of their topics. The global topic is its own changelog, so the checkpoint holds
// those offsets and a restart reads on from them; there is no changelog topic of its own.
import type { CheckpointEntry, KeyValueBytesStore } from '@kstreams/state-store';
import { type Logger, pino } from 'pino';
import { ProcessingError, StreamsError } from '../../errors.ts';
import type { StateStore } from '../../state/state-store.ts';
import type { StoreBuilder } from '../../state/store-builder.ts';
import type { Cancellable, RecordMetadata } from '../processor.ts';
import type { FixedKeyRecord, Record } from '../record.ts';
import type { Topology } from '../topology.ts';
import { type ErrorHandlingOptions, TaskExceptionHandling } from './exception-handling.ts';
import { OperatorDrops } from './operator-drops.ts';
import type { RuntimeNodeRef, TaskServices } from './processor-context-impl.ts';
import {
  buildTaskGraph,
  type ProcessorRuntimeNode,
  type RuntimeNode,
  type SinkTarget,
  type SourceRuntimeNode,
} from './processor-nodes.ts';
import { ProcessorStateManager } from './processor-state-manager.ts';
import type { RecordDeserializer } from './record-deserializer.ts';
import { type InputRecord, topicPartitionKey } from './records.ts';
import type { DefaultSerdes } from './serde-resolver.ts';

export interface GlobalStateUpdateTaskOptions extends DefaultSerdes {
  applicationId: string;
  topology: Topology;
  /** The bytes store of each global store (LevelDB under `<stateDir>/<appId>/global`, or memory). */
  storeFactory: (storeName: string, taskId: string, builder: StoreBuilder) => KeyValueBytesStore;
  checkpointFile?: string | undefined;
  /** The deserialization handler applies as in stream tasks; there is no dead-letter queue here. */
  errorHandling?: ErrorHandlingOptions;
  logger?: Logger;
  now?: () => number;
}

export const GLOBAL_TASK_ID = 'global';

export class GlobalStateUpdateTask implements TaskServices, SinkTarget {
  readonly applicationId: string;
  readonly id = { subtopology: -1, partition: -1 };
  readonly idString = GLOBAL_TASK_ID;
  /** The global stores' source topics (each read from all its partitions). */
  readonly topics: string[];
  private readonly sources: Map<string, SourceRuntimeNode>;
  private readonly processors: ProcessorRuntimeNode[];
  private readonly stateManager: ProcessorStateManager;
  private readonly deserializer: RecordDeserializer;
  private readonly drops: OperatorDrops;
  private readonly now: () => number;
  private readonly offsets = new Map<string, CheckpointEntry>();
  private current: InputRecord | undefined;
  private streamTimeMs = -1;
  private dirty = false;

  constructor(options: GlobalStateUpdateTaskOptions) {
    this.applicationId = options.applicationId;
    this.now = options.now ?? Date.now;
    const builder = options.topology.internalBuilder;
    const global = builder.globalSubtopology();
    if (global === undefined) throw new StreamsError('The topology has no global state store');
    const logger = (options.logger ?? pino({ name: 'kstreams' })).child({ task: GLOBAL_TASK_ID });
    this.drops = new OperatorDrops(logger);
    const noDeadLetters = {
      send: () =>
        logger.warn('a dead-letter record of a global store is not written (no DLQ for global stores)'),
    };
    const errors = new TaskExceptionHandling(GLOBAL_TASK_ID, noDeadLetters, logger, options.errorHandling);
    this.deserializer = errors.recordDeserializer((topic) => this.sources.get(topic)?.name ?? topic);
    this.stateManager = new ProcessorStateManager({
      taskId: GLOBAL_TASK_ID,
      applicationId: this.applicationId,
      partition: 0,
      storeFactory: options.storeFactory,
      checkpointFile: options.checkpointFile,
      defaultKeySerde: options.defaultKeySerde,
      defaultValueSerde: options.defaultValueSerde,
      onCommitRequested: () => {},
      // The global topic is the store's changelog: its serdes see it (serde-init.ts inits them so).
      serdeTopic: (name) => builder.globalStoreTopic(name),
    });
    for (const store of global.stores) this.stateManager.register(store);
    const graph = buildTaskGraph(global.nodes, {
      builder,
      applicationId: this.applicationId,
      partition: 0,
      defaultKeySerde: options.defaultKeySerde,
      defaultValueSerde: options.defaultValueSerde,
      task: this,
    });
    this.sources = graph.sources;
    this.processors = graph.processors;
    this.topics = [...this.sources.keys()];
  }

  /** Opens the stores, inits the processors; returns the offsets to read on from (the checkpoint). */
  async initialize(): Promise<CheckpointEntry[]> {
    const checkpoint = await this.stateManager.initialize();
    for (const entry of checkpoint) this.offsets.set(topicPartitionKey(entry.topic, entry.partition), entry);
    for (const node of this.processors) node.processor.init?.(node.context);
    return checkpoint;
  }

  get storeNames(): string[] {
    return this.stateManager.storeNames;
  }

  /** A global store, as the stream tasks' processors read it (through the uncommitted writes). */
  store(storeName: string): StateStore | undefined {
    return this.stateManager.storeNames.includes(storeName) ? this.stateManager.store(storeName) : undefined;
  }

  /**
   * What the sources' serdes must fetch before `process` can deserialize these records (a registry
   * schema not cached yet: RecordDeserializer.prepare), or undefined.
   */
  prepare(records: readonly InputRecord[]): Promise<unknown> | undefined {
    const pending: Promise<unknown>[] = [];
    for (const record of records) {
      const source = this.sources.get(record.topic);
      const p = source && this.deserializer.prepare(source, record);
      if (p !== undefined) pending.push(p);
    }
    return pending.length === 0 ? undefined : Promise.all(pending);
  }

  /** Applies one record of a global topic (a put or a delete in its store). */
  process(record: InputRecord): void {
    const source = this.sources.get(record.topic);
    if (source === undefined) throw new StreamsError(`The global stores do not read topic '${record.topic}'`);
    this.offsets.set(topicPartitionKey(record.topic, record.partition), {
      topic: record.topic,
      partition: record.partition,
      offset: record.offset + 1,
    });
    this.dirty = true;
    const deserialized = this.deserializer.deserialize(source, record);
    if (deserialized === undefined) return;
    if (record.timestamp > this.streamTimeMs) this.streamTimeMs = record.timestamp;
    this.current = record;
    try {
      source.process(deserialized);
    } finally {
      this.current = undefined;
    }
  }

  /** Offsets read so far (next offset per partition), including the checkpoint's. */
  positions(): CheckpointEntry[] {
    return [...this.offsets.values()];
  }

  /** Moves a partition's position past offsets without records (transaction markers). */
  skipTo(topic: string, partition: number, offset: number): void {
    const key = topicPartitionKey(topic, partition);
    if (offset <= (this.offsets.get(key)?.offset ?? -1)) return;
    this.offsets.set(key, { topic, partition, offset });
    this.dirty = true;
  }

  /** Writes the buffered store changes and the offsets reached (Kafka Streams' global flush). */
  async flush(): Promise<void> {
    if (!this.dirty) return;
    this.dirty = false;
    await this.stateManager.commit(this.positions());
  }

  async close(): Promise<void> {
    for (const node of this.processors) await node.processor.close?.();
    const error = await this.stateManager.close();
    if (error !== undefined) throw error;
  }

  get droppedRecordsTotal(): number {
    return this.deserializer.droppedRecordsTotal + this.drops.total;
  }

  // ---- TaskServices, for the global processors' contexts ----

  forward(from: RuntimeNodeRef, record: Record<unknown, unknown> | FixedKeyRecord<unknown, unknown>): void {
    for (const child of (from as RuntimeNode).children) {
      try {
        const result = child.process(record as Record<unknown, unknown>);
        if (result instanceof Promise) throw new StreamsError('global store processors must be synchronous');
      } catch (error) {
        if (error instanceof StreamsError) throw error;
        throw new ProcessingError(GLOBAL_TASK_ID, child.name, this.describe(), { cause: error });
      }
    }
  }

  stateStore(_node: RuntimeNodeRef, name: string): StateStore {
    return this.stateManager.store(name);
  }

  schedule(node: RuntimeNodeRef): Cancellable {
    throw new StreamsError(`${node.name}: global store processors cannot schedule punctuators`);
  }

  recordMetadata(): RecordMetadata | undefined {
    const r = this.current;
    return r === undefined ? undefined : { topic: r.topic, partition: r.partition, offset: r.offset };
  }

  requestCommit(): void {}

  streamTime(): number {
    return this.streamTimeMs;
  }

  wallClockTime(): number {
    return this.now();
  }

  recordDropped(node: RuntimeNodeRef, reason: string): void {
    this.drops.record(node, reason, this.current);
  }

  private describe(): string {
    const r = this.current;
    return r === undefined ? 'in the global task' : `processing ${r.topic}-${r.partition} offset ${r.offset}`;
  }

  sendFromSink(sink: RuntimeNodeRef): void {
    throw new StreamsError(`${sink.name}: global store processors cannot forward to sinks`);
  }
}

import {
  type CheckpointEntry,
  type KeyValueBytesStore,
  readCheckpoint,
  type TopicPartition,
  TransactionalBuffer,
  TypedKeyValueStore,
  writeCheckpoint,
} from '@kstreams/state-store';
import { type Logger, pino } from 'pino';
import {
  ConfigError,
  DeserializationError,
  ProcessingError,
  SerdeError,
  StreamsError,
} from '../../errors.ts';
import type { Serde } from '../../serdes/serde.ts';
import type { StateStore } from '../../state/state-store.ts';
import type { StoreBuilder } from '../../state/store-builder.ts';
import type { Cancellable, PunctuationType, Punctuator, RecordMetadata } from '../processor.ts';
import { type FixedKeyRecord, type Headers, Record } from '../record.ts';
import type { TaskId } from '../task-id.ts';
import { taskIdToString } from '../task-id.ts';
import type { TopicNameExtractor } from '../topic-name-extractor.ts';
import type { Topology } from '../topology.ts';
import {
  type AnyProcessor,
  type AnySerde,
  changelogTopicName,
  type NodeDef,
  type SerdeWrapper,
} from './internal-topology-builder.ts';
import { ProcessorContextImpl, type RuntimeNodeRef, type TaskServices } from './processor-context-impl.ts';
import { PunctuationQueue, PunctuationSchedule } from './punctuation.ts';
import { type RecordCollector, sendSerialized } from './record-collector.ts';
import type { DeserializationHandlerResponse, InputRecord } from './records.ts';

export type { TaskId } from '../task-id.ts';

export interface StreamTaskOptions {
  id: TaskId;
  applicationId: string;
  topology: Topology;
  collector: RecordCollector;
  storeFactory: (storeName: string, taskId: string) => KeyValueBytesStore;
  /** Undefined: no checkpoint written or read. */
  checkpointFile?: string;
  maxUncommittedBytes?: number;
  /** Default: 'fail' (throw the DeserializationError). */
  deserializationExceptionHandler?: (
    error: DeserializationError,
    record: InputRecord,
  ) => DeserializationHandlerResponse;
  logger?: Logger;
  /** Wall clock; default Date.now. */
  now?: () => number;
  /** For sources, sinks and stores that were given no serde (Kafka's default.key.serde). */
  defaultKeySerde?: Serde<unknown>;
  defaultValueSerde?: Serde<unknown>;
}

interface TaskStore {
  readonly builder: StoreBuilder;
  readonly changelog: TopicPartition | null;
  readonly keySerde: AnySerde;
  readonly valueSerde: AnySerde;
  bytes?: KeyValueBytesStore;
  buffer?: TransactionalBuffer;
  typed?: TypedKeyValueStore<unknown, unknown>;
}

abstract class RuntimeNode implements RuntimeNodeRef {
  children: RuntimeNode[] = [];
  readonly childByName = new Map<string, RuntimeNode>();
  constructor(readonly name: string) {}
  abstract process(record: Record<unknown, unknown>): void | Promise<void>;
}

class SourceRuntimeNode extends RuntimeNode {
  constructor(
    name: string,
    readonly keySerde: AnySerde,
    readonly valueSerde: AnySerde,
    private readonly task: StreamTask,
  ) {
    super(name);
  }

  process(record: Record<unknown, unknown>): void {
    this.task.forward(this, record);
  }
}

class ProcessorRuntimeNode extends RuntimeNode {
  readonly context: ProcessorContextImpl;

  constructor(
    name: string,
    readonly processor: AnyProcessor,
    readonly storeNames: ReadonlySet<string>,
    services: TaskServices,
  ) {
    super(name);
    this.context = new ProcessorContextImpl(services, this);
  }

  process(record: Record<unknown, unknown>): void | Promise<void> {
    return this.processor.process(record);
  }
}

class SinkRuntimeNode extends RuntimeNode {
  constructor(
    name: string,
    /** Resolved (internal topics prefixed) or an extractor. */
    readonly topic: string | TopicNameExtractor<unknown, unknown>,
    readonly keySerde: AnySerde,
    readonly valueSerde: AnySerde,
    private readonly task: StreamTask,
  ) {
    super(name);
  }

  process(record: Record<unknown, unknown>): void {
    this.task.sendFromSink(this, record);
  }
}

let defaultLogger: Logger | undefined;

/**
 * One partition of one sub-topology: its processors (fresh instances), its stores behind
 * transactional buffers, its consumed offsets and its punctuation schedules. The runtime and the
 * TopologyTestDriver both drive this class.
 */
export class StreamTask implements TaskServices {
  readonly id: TaskId;
  readonly idString: string;
  readonly applicationId: string;
  readonly inputPartitions: TopicPartition[];
  readonly changelogPartitions: Array<TopicPartition & { storeName: string }>;

  private readonly options: StreamTaskOptions;
  private readonly logger: Logger;
  private readonly now: () => number;
  private readonly sources = new Map<string, SourceRuntimeNode>();
  private readonly processors: ProcessorRuntimeNode[] = [];
  private readonly stores = new Map<string, TaskStore>();
  private readonly streamTimeSchedules = new PunctuationQueue<ProcessorRuntimeNode>();
  private readonly wallClockSchedules = new PunctuationQueue<ProcessorRuntimeNode>();

  private storesOpen = false;
  private topologyInitialized = false;
  private closed = false;
  private currentRecord: InputRecord | undefined;
  private streamTimeMs = -1;
  private pending: Promise<void>[] = [];
  private asyncError: unknown;
  private needsCommit = false;
  private wantsCommit = false;
  private consumed = new Map<string, number>();
  private committedConsumed = new Map<string, number>();
  /**
   * The stores and changelogs moved on but the input offsets did not reach Kafka (an offset commit
   * refused with a stale generation while the group rebalances). Without this a task that has
   * processed all its input would never commit again: nothing new marks it as needing a commit.
   */
  private offsetsUncommitted = false;
  private readonly checkpoint = new Map<string, CheckpointEntry>();
  private droppedRecords = 0;
  private processedRecords = 0;

  constructor(options: StreamTaskOptions) {
    this.options = options;
    this.id = { subtopology: options.id.subtopology, partition: options.id.partition };
    this.idString = taskIdToString(this.id);
    this.applicationId = options.applicationId;
    this.now = options.now ?? Date.now;
    defaultLogger ??= pino({ name: 'kstreams' });
    this.logger = (options.logger ?? defaultLogger).child({ task: this.idString });

    const builder = options.topology.internalBuilder;
    const group = builder.subtopologyNodes().find((g) => g.id === this.id.subtopology);
    if (group === undefined) {
      throw new StreamsError(
        `Task ${this.idString}: the topology has no sub-topology ${this.id.subtopology} ` +
          `(it has ${builder.subtopologyNodes().length})`,
      );
    }
    const partition = this.id.partition;
    this.inputPartitions = [];
    this.changelogPartitions = [];

    for (const storeBuilder of group.stores) {
      const changelog = storeBuilder.loggingEnabled
        ? { topic: changelogTopicName(this.applicationId, storeBuilder.name), partition }
        : null;
      if (changelog !== null) this.changelogPartitions.push({ ...changelog, storeName: storeBuilder.name });
      this.stores.set(storeBuilder.name, {
        builder: storeBuilder,
        changelog,
        keySerde: this.resolveSerde(
          storeBuilder.keySerde as AnySerde | undefined,
          'key',
          `state store '${storeBuilder.name}'`,
        ),
        valueSerde: this.resolveSerde(
          storeBuilder.valueSerde as AnySerde | undefined,
          'value',
          `state store '${storeBuilder.name}'`,
        ),
      });
    }

    const nodes = new Map<string, RuntimeNode>();
    for (const def of group.nodes) nodes.set(def.name, this.createNode(def));
    for (const def of group.nodes) {
      if (def.kind === 'source') continue;
      const node = nodes.get(def.name)!;
      for (const parentName of def.parents) {
        const parent = nodes.get(parentName)!;
        parent.children.push(node);
        parent.childByName.set(node.name, node);
      }
    }
  }

  // ---- set-up ----

  async initializeStores(): Promise<CheckpointEntry[]> {
    if (this.storesOpen) throw new StreamsError(`Task ${this.idString}: stores are already initialized`);
    for (const [name, store] of this.stores) {
      const bytes = this.options.storeFactory(name, this.idString);
      await bytes.open();
      store.bytes = bytes;
      store.buffer = new TransactionalBuffer(bytes, {
        ...(this.options.maxUncommittedBytes === undefined
          ? {}
          : { maxUncommittedBytes: this.options.maxUncommittedBytes }),
        onCommitRequested: () => {
          this.wantsCommit = true;
        },
      });
      store.typed = new TypedKeyValueStore(name, store.buffer, store.keySerde, store.valueSerde);
    }
    this.storesOpen = true;
    const entries =
      this.options.checkpointFile === undefined ? [] : await readCheckpoint(this.options.checkpointFile);
    for (const entry of entries) this.checkpoint.set(`${entry.topic}\u0000${entry.partition}`, { ...entry });
    return entries;
  }

  /** The raw bytes store, for the runtime's changelog restore (bypasses the buffer). */
  storeFor(storeName: string): KeyValueBytesStore {
    const store = this.stores.get(storeName);
    if (store === undefined)
      throw new StreamsError(`Task ${this.idString} has no state store '${storeName}'`);
    if (store.bytes === undefined) {
      throw new StreamsError(
        `Task ${this.idString}: call initializeStores() before storeFor('${storeName}')`,
      );
    }
    return store.bytes;
  }

  /** The typed view processors see (reads go through the transactional buffer). */
  typedStore(storeName: string): TypedKeyValueStore<unknown, unknown> {
    const store = this.stores.get(storeName);
    if (store === undefined)
      throw new StreamsError(`Task ${this.idString} has no state store '${storeName}'`);
    if (store.typed === undefined) {
      throw new StreamsError(`Task ${this.idString}: state store '${storeName}' is not initialized yet`);
    }
    return store.typed;
  }

  get storeNames(): string[] {
    return [...this.stores.keys()];
  }

  async initializeTopology(): Promise<void> {
    if (!this.storesOpen && this.stores.size > 0) {
      throw new StreamsError(`Task ${this.idString}: call initializeStores() before initializeTopology()`);
    }
    if (this.topologyInitialized) return;
    this.topologyInitialized = true;
    for (const node of this.processors) {
      try {
        node.processor.init?.(node.context);
      } catch (error) {
        throw this.wrapError(node, error, 'in init()');
      }
    }
  }

  // ---- processing ----

  process(record: InputRecord): void | Promise<void> {
    if (!this.topologyInitialized) {
      throw new StreamsError(`Task ${this.idString}: call initializeTopology() before process()`);
    }
    const source = this.sources.get(record.topic);
    if (source === undefined) {
      throw new StreamsError(
        `Task ${this.idString} does not read topic '${record.topic}' (it reads ${[...this.sources.keys()].join(', ')})`,
      );
    }
    this.needsCommit = true;
    const deserialized = this.deserialize(source, record);
    if (deserialized === undefined) {
      this.markConsumed(record);
      return;
    }
    if (record.timestamp > this.streamTimeMs) this.streamTimeMs = record.timestamp;
    this.currentRecord = record;
    this.processedRecords += 1;
    source.process(deserialized);
    if (this.pending.length > 0 || this.asyncError !== undefined) return this.finishAsync(record);
    this.currentRecord = undefined;
    this.markConsumed(record);
    return this.punctuateStreamTime();
  }

  private async finishAsync(record: InputRecord): Promise<void> {
    await this.drain();
    this.currentRecord = undefined;
    this.markConsumed(record);
    await this.punctuateStreamTime();
  }

  private markConsumed(record: InputRecord): void {
    this.consumed.set(record.topic, record.offset + 1);
  }

  private deserialize(source: SourceRuntimeNode, record: InputRecord): Record<unknown, unknown> | undefined {
    let part: 'key' | 'value' = 'key';
    try {
      const key = record.key === null ? null : source.keySerde.deserialize(record.key, record.topic);
      part = 'value';
      const value = record.value === null ? null : source.valueSerde.deserialize(record.value, record.topic);
      return new Record(key, value, record.timestamp, (record.headers ?? {}) as Headers);
    } catch (cause) {
      const error = new DeserializationError(
        { topic: record.topic, partition: record.partition, offset: record.offset, part },
        { cause },
      );
      const handler = this.options.deserializationExceptionHandler;
      const response = handler === undefined ? 'fail' : handler(error, record);
      if (response === 'continue') {
        this.droppedRecords += 1;
        this.logger.warn(
          { topic: record.topic, partition: record.partition, offset: record.offset, err: cause },
          `Skipping a record that cannot be deserialized (${part}); dropped records: ${this.droppedRecords}`,
        );
        return undefined;
      }
      throw error;
    }
  }

  /** TaskServices: called by contexts and source nodes. */
  forward(
    from: RuntimeNodeRef,
    record: Record<unknown, unknown> | FixedKeyRecord<unknown, unknown>,
    childName?: string,
  ): void {
    const node = from as RuntimeNode;
    const rec = record as Record<unknown, unknown>;
    if (childName !== undefined) {
      const child = node.childByName.get(childName);
      if (child === undefined) {
        throw new ProcessingError(
          this.idString,
          node.name,
          `forwarding to '${childName}', which is not one of its children (${node.children.map((c) => c.name).join(', ') || 'none'})`,
        );
      }
      this.dispatch(child, rec);
      return;
    }
    const children = node.children;
    for (let i = 0; i < children.length; i++) this.dispatch(children[i]!, rec);
  }

  private dispatch(node: RuntimeNode, record: Record<unknown, unknown>): void {
    let result: void | Promise<void>;
    try {
      result = node.process(record);
    } catch (error) {
      throw this.wrapError(node, error, this.describeCurrent());
    }
    if (result !== undefined && typeof (result as Promise<void>).then === 'function') {
      const detail = this.describeCurrent();
      // Caught at once so a rejection never goes unhandled while earlier promises are awaited.
      this.pending.push(
        result.then(undefined, (error: unknown) => {
          this.asyncError ??= this.wrapError(node, error, detail);
        }),
      );
    }
  }

  private async drain(): Promise<void> {
    while (this.pending.length > 0) {
      const batch = this.pending;
      this.pending = [];
      await Promise.all(batch);
    }
    if (this.asyncError !== undefined) {
      const error = this.asyncError;
      this.asyncError = undefined;
      throw error;
    }
  }

  private describeCurrent(): string {
    const r = this.currentRecord;
    return r === undefined ? 'while punctuating' : `processing ${r.topic}-${r.partition} offset ${r.offset}`;
  }

  private wrapError(node: RuntimeNodeRef, error: unknown, detail: string): StreamsError {
    // Errors that already say where they happened pass unchanged; a bare serde error gets the node.
    if (error instanceof StreamsError && !(error instanceof SerdeError)) return error;
    return new ProcessingError(this.idString, node.name, detail, { cause: error });
  }

  sendFromSink(sink: SinkRuntimeNode, record: Record<unknown, unknown>): void {
    const current = this.currentRecord;
    const topic =
      typeof sink.topic === 'string'
        ? sink.topic
        : sink.topic(record.key, record.value, {
            topic: current?.topic,
            partition: current?.partition,
            offset: current?.offset,
            timestamp: record.timestamp,
            headers: record.headers,
          });
    sendSerialized(this.options.collector, sink, topic, record);
  }

  stateStore(node: RuntimeNodeRef, name: string): StateStore {
    const processorNode = node as ProcessorRuntimeNode;
    if (!processorNode.storeNames.has(name)) {
      throw new StreamsError(
        `Processor ${node.name} has no access to state store '${name}': connect them ` +
          `(addStateStore(builder, '${node.name}'), connectProcessorAndStateStores, or process(supplier, '${name}'))`,
      );
    }
    return this.typedStore(name);
  }

  recordMetadata(): RecordMetadata | undefined {
    const r = this.currentRecord;
    return r === undefined ? undefined : { topic: r.topic, partition: r.partition, offset: r.offset };
  }

  requestCommit(): void {
    this.wantsCommit = true;
  }

  streamTime(): number {
    return this.streamTimeMs;
  }

  wallClockTime(): number {
    return this.now();
  }

  // ---- punctuation ----

  schedule(
    node: RuntimeNodeRef,
    intervalMs: number,
    type: PunctuationType,
    punctuator: Punctuator,
  ): Cancellable {
    if (!Number.isFinite(intervalMs) || intervalMs < 1) {
      throw new StreamsError(
        `Processor ${node.name}: schedule interval must be at least 1 ms, got ${intervalMs}`,
      );
    }
    if (typeof punctuator !== 'function')
      throw new StreamsError(`Processor ${node.name}: punctuator must be a function`);
    const owner = node as ProcessorRuntimeNode;
    if (type === 'stream-time') {
      // Aligned to 0 as in Kafka Streams: fires at the first record, then on the interval grid.
      const schedule = new PunctuationSchedule(owner, type, intervalMs, 0, punctuator);
      this.streamTimeSchedules.add(schedule);
      return schedule;
    }
    if (type === 'wall-clock-time') {
      const schedule = new PunctuationSchedule(owner, type, intervalMs, this.now() + intervalMs, punctuator);
      this.wallClockSchedules.add(schedule);
      return schedule;
    }
    throw new StreamsError(`Processor ${node.name}: unknown punctuation type '${String(type)}'`);
  }

  private punctuateStreamTime(): void | Promise<void> {
    if (this.streamTimeSchedules.size === 0 || this.streamTimeMs < 0) return;
    return this.runPunctuators(this.streamTimeSchedules, this.streamTimeMs);
  }

  /** Fires the wall-clock punctuators due at `now`. */
  punctuateWallClock(now: number): void | Promise<void> {
    if (this.wallClockSchedules.size === 0) return;
    return this.runPunctuators(this.wallClockSchedules, now);
  }

  private runPunctuators(queue: PunctuationQueue<ProcessorRuntimeNode>, now: number): void | Promise<void> {
    const due = queue.due(now);
    if (due.length === 0) return;
    this.needsCommit = true;
    for (const schedule of due) {
      schedule.advance(now);
      let result: void | Promise<void>;
      try {
        result = schedule.punctuator(now);
      } catch (error) {
        throw this.wrapError(schedule.owner, error, 'while punctuating');
      }
      if (result !== undefined && typeof (result as Promise<void>).then === 'function') {
        this.pending.push(
          result.then(undefined, (error: unknown) => {
            this.asyncError ??= this.wrapError(schedule.owner, error, 'while punctuating');
          }),
        );
      }
    }
    if (this.pending.length > 0 || this.asyncError !== undefined) return this.drain();
  }

  // ---- commit ----

  get commitNeeded(): boolean {
    return this.needsCommit || this.offsetsUncommitted;
  }

  get commitRequested(): boolean {
    return this.wantsCommit;
  }

  /** Records dropped by the deserialization handler since the task was created. */
  get droppedRecordsTotal(): number {
    return this.droppedRecords;
  }

  get processedRecordsTotal(): number {
    return this.processedRecords;
  }

  /** Pending store changes for the changelog (last value per key, null = tombstone); does not clear. */
  changelogRecords(): Array<{ topic: string; partition: number; key: Buffer; value: Buffer | null }> {
    const out: Array<{ topic: string; partition: number; key: Buffer; value: Buffer | null }> = [];
    for (const store of this.stores.values()) {
      if (store.changelog === null || store.buffer === undefined) continue;
      for (const change of store.buffer.pendingChanges()) {
        out.push({
          topic: store.changelog.topic,
          partition: store.changelog.partition,
          key: change.key,
          value: change.value,
        });
      }
    }
    return out;
  }

  /** Next offset (last processed + 1) of each input partition processed since creation. */
  consumedOffsets(): CheckpointEntry[] {
    return [...this.consumed].map(([topic, offset]) => ({ topic, partition: this.id.partition, offset }));
  }

  /**
   * After Kafka accepted the commit: apply the buffers, write the checkpoint, clear the flags.
   * `offsetsCommitted: false` (at_least_once): the output and changelog are acknowledged, so the
   * stores follow them, but the offsets must be committed again at the next commit.
   */
  async postCommit(
    changelogOffsets: readonly CheckpointEntry[],
    { offsetsCommitted = true }: { offsetsCommitted?: boolean } = {},
  ): Promise<void> {
    for (const store of this.stores.values()) await store.buffer?.commit();
    for (const entry of changelogOffsets) {
      this.checkpoint.set(`${entry.topic}\u0000${entry.partition}`, {
        topic: entry.topic,
        partition: entry.partition,
        offset: entry.offset,
      });
    }
    if (this.options.checkpointFile !== undefined && this.checkpoint.size > 0) {
      await writeCheckpoint(this.options.checkpointFile, [...this.checkpoint.values()]);
    }
    this.committedConsumed = new Map(this.consumed);
    this.offsetsUncommitted = !offsetsCommitted;
    this.needsCommit = false;
    this.wantsCommit = false;
  }

  /** Drops the buffered store writes and the offsets consumed since the last commit. */
  rollback(): void {
    for (const store of this.stores.values()) store.buffer?.rollback();
    this.consumed = new Map(this.committedConsumed);
    this.pending = [];
    this.asyncError = undefined;
    this.currentRecord = undefined;
    this.needsCommit = false;
    this.wantsCommit = false;
  }

  /** Closes processors and stores; commits nothing (buffered writes are dropped). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    let firstError: unknown;
    if (this.topologyInitialized) {
      for (const node of this.processors) {
        try {
          await node.processor.close?.();
        } catch (error) {
          firstError ??= this.wrapError(node, error, 'in close()');
        }
      }
    }
    for (const store of this.stores.values()) {
      store.buffer?.rollback();
      try {
        await store.bytes?.close();
      } catch (error) {
        firstError ??= error;
      }
    }
    if (firstError !== undefined) throw firstError;
  }

  // ---- construction helpers ----

  private createNode(def: NodeDef): RuntimeNode {
    const topology = this.options.topology.internalBuilder;
    switch (def.kind) {
      case 'source': {
        const node = new SourceRuntimeNode(
          def.name,
          this.resolveSerde(def.keySerde, 'key', `source ${def.name}`),
          this.resolveSerde(def.valueSerde, 'value', `source ${def.name}`, def.valueSerdeWrapper),
          this,
        );
        for (const topic of def.topics) {
          const resolved = topology.resolveTopic(this.applicationId, topic);
          this.sources.set(resolved, node);
          this.inputPartitions.push({ topic: resolved, partition: this.id.partition });
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
        const node = new ProcessorRuntimeNode(def.name, processor, new Set(def.stores), this);
        this.processors.push(node);
        return node;
      }
      case 'sink':
        return new SinkRuntimeNode(
          def.name,
          typeof def.topic === 'string' ? topology.resolveTopic(this.applicationId, def.topic) : def.topic,
          this.resolveSerde(def.keySerde, 'key', `sink ${def.name}`),
          this.resolveSerde(def.valueSerde, 'value', `sink ${def.name}`, def.valueSerdeWrapper),
          this,
        );
    }
  }

  private resolveSerde(
    serde: AnySerde | undefined,
    part: 'key' | 'value',
    where: string,
    wrapper?: SerdeWrapper,
  ): AnySerde {
    const resolved =
      serde ?? (part === 'key' ? this.options.defaultKeySerde : this.options.defaultValueSerde);
    if (resolved === undefined) {
      const option = part === 'key' ? 'keySerde' : 'valueSerde';
      throw new ConfigError(
        `No ${part} serde for ${where}: pass ${option} to the operation that created it ` +
          `(stream(), to(), groupBy(), Materialized, ...) or set default${part === 'key' ? 'Key' : 'Value'}Serde in the config`,
      );
    }
    return wrapper === undefined ? resolved : wrapper(resolved);
  }
}

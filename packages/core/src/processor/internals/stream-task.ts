import type { CheckpointEntry, KeyValueBytesStore, TopicPartition } from '@kstreams/state-store';
import { type Logger, pino } from 'pino';
import { type RecordSendError, StreamsError } from '../../errors.ts';
import type { Position } from '../../query/position.ts';
import type { RecordCache } from '../../state/internals/thread-cache.ts';
import type { StateStore } from '../../state/state-store.ts';
import type { Cancellable, PunctuationType, Punctuator, RecordMetadata } from '../processor.ts';
import type { FixedKeyRecord, Record } from '../record.ts';
import type { TaskId } from '../task-id.ts';
import { taskIdToString } from '../task-id.ts';
import { type CommitListener, CommitPoint } from './commit-point.ts';
import { TaskExceptionHandling } from './exception-handling.ts';
import { OperatorDrops } from './operator-drops.ts';
import { PendingWork } from './pending-work.ts';
import type { RuntimeNodeRef, TaskServices } from './processor-context-impl.ts';
import {
  buildTaskGraph,
  type ProcessorRuntimeNode,
  type SinkRuntimeNode,
  type SinkTarget,
  type SourceRuntimeNode,
} from './processor-nodes.ts';
import {
  type ChangelogChange,
  type ChangelogMessage,
  type ChangelogPartition,
  ProcessorStateManager,
} from './processor-state-manager.ts';
import type { RecordDeserializer } from './record-deserializer.ts';
import type { InputRecord, OutputRecord } from './records.ts';
import type { DefaultSerdes } from './serde-resolver.ts';
import {
  attachSourceTimestamps,
  invalidTimestampError,
  type SourceTimestamps,
  StampedRecord,
  takeStamped,
} from './source-timestamps.ts';
import type { StreamTaskOptions } from './stream-task-options.ts';
import { type AsyncMetrics, TaskAsyncWork } from './task-async-work.ts';
import { TaskCaches } from './task-caches.ts';
import { TaskProcessors } from './task-processors.ts';
import { TaskPunctuator } from './task-punctuator.ts';
import { TaskRouting } from './task-routing.ts';

export type { TaskId } from '../task-id.ts';
export type { StreamTaskOptions };

let defaultLogger: Logger | undefined;

/**
 * One partition of one sub-topology: its processors (fresh instances), its stores (held by its
 * ProcessorStateManager), its consumed offsets and its punctuation schedules. The runtime and the
 * TopologyTestDriver both drive this class.
 */
export class StreamTask implements TaskServices, SinkTarget {
  readonly id: TaskId;
  readonly idString: string;
  readonly applicationId: string;
  readonly defaultSerdes: DefaultSerdes;
  readonly inputPartitions: TopicPartition[];
  readonly changelogPartitions: ChangelogPartition[];

  private readonly options: StreamTaskOptions;
  private readonly logger: Logger;
  private readonly operatorDrops: OperatorDrops;
  private readonly now: () => number;
  private readonly sources: Map<string, SourceRuntimeNode>;
  private readonly processors: TaskProcessors;
  private readonly stateManager: ProcessorStateManager;
  private readonly deserializer: RecordDeserializer;
  private readonly errors: TaskExceptionHandling;
  private readonly punctuator: TaskPunctuator;
  private readonly caches: TaskCaches;
  private readonly routing: TaskRouting;
  private readonly asyncWork: TaskAsyncWork;

  private closed = false;
  private currentRecord: InputRecord | undefined;
  private readonly work = new PendingWork();
  private readonly point = new CommitPoint();
  private processedRecords = 0;

  constructor(options: StreamTaskOptions) {
    this.options = options;
    this.id = { subtopology: options.id.subtopology, partition: options.id.partition };
    this.idString = taskIdToString(this.id);
    this.applicationId = options.applicationId;
    this.defaultSerdes = {
      defaultKeySerde: options.defaultKeySerde,
      defaultValueSerde: options.defaultValueSerde,
    };
    this.now = options.now ?? Date.now;
    const current = {
      get: () => this.currentRecord,
      set: (record: InputRecord | undefined) => {
        this.currentRecord = record;
      },
    };
    this.caches = new TaskCaches(options.threadCache, this.idString, options.topology, this.work, current);
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
    this.operatorDrops = new OperatorDrops(this.logger);
    const { collector, errorHandling } = options;
    this.errors = new TaskExceptionHandling(this.idString, collector, this.logger, errorHandling);
    this.deserializer = this.errors.recordDeserializer((topic) => this.sources.get(topic)!.name);
    this.routing = new TaskRouting(this.idString, this.errors, this.work, current.get);
    const { errors, routing, now, options: o } = this;
    const asyncHooks = { onProgress: o.onAsyncProgress, onCall: o.onAsyncCall };
    this.asyncWork = new TaskAsyncWork({ current, errors, routing, now, ...asyncHooks });
    const { point, work } = this;
    this.punctuator = new TaskPunctuator({ point, errors, routing, work, now, onPunctuate: o.onPunctuate });
    // The task's options hold the state manager's own (StateOptions) besides the task's.
    this.stateManager = new ProcessorStateManager({
      ...options,
      taskId: this.idString,
      applicationId: this.applicationId,
      partition: this.id.partition,
      onCommitRequested: () => this.requestCommit(),
      currentRecord: current.get,
    });
    for (const storeBuilder of group.stores) this.stateManager.register(storeBuilder);
    this.changelogPartitions = this.stateManager.changelogPartitions;

    const graph = buildTaskGraph(group.nodes, {
      builder,
      applicationId: this.applicationId,
      partition: this.id.partition,
      defaultKeySerde: options.defaultKeySerde,
      defaultValueSerde: options.defaultValueSerde,
      task: this,
      async: { work: this.asyncWork, input: current.get },
    });
    this.sources = graph.sources;
    this.processors = new TaskProcessors(graph.processors, this.routing);
    this.inputPartitions = graph.inputPartitions;
    attachSourceTimestamps(group.nodes, this.sources, options.defaultTimestampExtractor, {
      deserializer: this.deserializer,
      logger: this.logger,
      onDropped: (source) => this.recordDropped(source, 'negative extracted timestamp'),
      listen: (listener) => this.point.listen(listener),
    });
  }

  /** How the runtime's queue of `topic` stamps its heads; undefined: the record's own timestamp. */
  timestamps(topic: string): SourceTimestamps | undefined {
    return this.sources.get(topic)?.timestamps?.get(topic);
  }

  // ---- set-up ----

  /** Opens the stores; returns the checkpoint read (or `[]`). The committed offsets seed their positions. */
  initializeStores(committedOffsets: readonly CheckpointEntry[] = []): Promise<CheckpointEntry[]> {
    return this.stateManager.initialize(committedOffsets);
  }

  /** The raw bytes store, for the runtime's changelog restore (bypasses the buffer). */
  storeFor(storeName: string): KeyValueBytesStore {
    return this.stateManager.bytesStore(storeName);
  }

  /** Turns the store's changelog records into the bytes the restore writes. */
  restoreConverter(storeName: string): (message: ChangelogMessage) => ChangelogMessage {
    return this.stateManager.restoreConverter(storeName);
  }

  restorePreparer(storeName: string): ((messages: readonly ChangelogMessage[]) => Promise<void>) | undefined {
    return this.stateManager.restorePreparer(storeName);
  }

  /** The store processors see (reads go through the transactional buffer). */
  store(storeName: string): StateStore {
    return this.stateManager.store(storeName);
  }

  get storeNames(): string[] {
    return this.stateManager.storeNames;
  }

  /** The store's committed bytes (a versioned store's too) and their position, for interactive queries. */
  committedState(storeName: string): { bytes: KeyValueBytesStore; position: Position } {
    return this.stateManager.committedState(storeName);
  }

  async initializeTopology(): Promise<void> {
    if (!this.stateManager.initialized && this.stateManager.size > 0) {
      throw new StreamsError(`Task ${this.idString}: call initializeStores() before initializeTopology()`);
    }
    if (!this.processors.init()) return;
    // What init() scheduled is what a rollback before the first commit returns to.
    this.punctuator.initialized();
  }

  // ---- processing ----

  process(record: InputRecord): void | Promise<void> {
    if (!this.processors.initialized) {
      throw new StreamsError(`Task ${this.idString}: call initializeTopology() before process()`);
    }
    const source = this.sources.get(record.topic);
    if (source === undefined) {
      throw new StreamsError(
        `Task ${this.idString} does not read topic '${record.topic}' (it reads ${[...this.sources.keys()].join(', ')})`,
      );
    }
    if (!this.asyncWork.canTake) this.asyncWork.throwFailure();
    this.point.needsCommit = true;
    // A registry serde's schema fetch: awaited only for a record whose schema is not cached (the
    // runtime's queue prepares before it stamps: source-timestamps.ts' prepareFetched).
    if (source.timestamps === undefined || !(record instanceof StampedRecord)) {
      const pending = this.deserializer.prepare(source, record);
      if (pending !== undefined) return pending.then(() => this.processFrom(source, record));
    }
    return this.processFrom(source, record);
  }

  private processFrom(source: SourceRuntimeNode, record: InputRecord): void | Promise<void> {
    let deserialized: Record<unknown, unknown> | undefined;
    if (source.timestamps === undefined) {
      deserialized = this.deserializer.deserialize(source, record);
      // The default extractor (FailOnInvalidTimestamp), without a call per record.
      if (record.timestamp < 0 && deserialized !== undefined)
        throw invalidTimestampError(record, deserialized);
    } else {
      record = takeStamped(source.timestamps.get(record.topic)!, record);
      deserialized = (record as StampedRecord).deserialized;
    }
    if (deserialized === undefined) {
      this.markConsumed(record);
      return;
    }
    this.point.advanceStreamTime(record.timestamp);
    this.currentRecord = record;
    this.processedRecords += 1;
    source.process(deserialized);
    if (this.work.busy) return this.finishAsync(record);
    this.currentRecord = undefined;
    this.markConsumed(record);
    return this.punctuator.streamTime();
  }

  // ---- async operators (the commit's hooks: docs/architecture.md) ----
  /** False while an async operator is at maxInFlight (or failed): the runtime gives the task no record. */
  get canTakeRecord(): boolean {
    return this.asyncWork.canTake;
  }

  /** Records taken by async operators whose results are not forwarded yet. */
  hasInFlight(): boolean {
    return this.asyncWork.inFlight > 0;
  }

  /** Every commit awaits this before it reads the consumed offsets; throws an async failure. */
  awaitInFlight(): Promise<void> {
    return this.asyncWork.settled(this.work);
  }

  asyncMetrics(): AsyncMetrics | undefined {
    return this.asyncWork.hasLanes ? this.asyncWork.metrics() : undefined;
  }

  private async finishAsync(record: InputRecord): Promise<void> {
    await this.work.drain();
    this.currentRecord = undefined;
    this.markConsumed(record);
    await this.punctuator.streamTime();
  }

  private markConsumed(record: InputRecord): void {
    this.point.consume(record.topic, record.offset + 1);
  }

  /**
   * Moves the consumed offset past offsets without records (transaction markers, aborted records),
   * so the committed offset reaches the log end, as Kafka Streams commits the consumer's position.
   */
  skipTo(topic: string, offset: number): void {
    this.point.skipTo(topic, offset);
  }

  /** TaskServices: called by contexts and source nodes. */
  forward(
    from: RuntimeNodeRef,
    record: Record<unknown, unknown> | FixedKeyRecord<unknown, unknown>,
    childName?: string,
  ): void {
    this.routing.forward(from, record, childName);
  }

  sendFromSink(sink: SinkRuntimeNode, record: Record<unknown, unknown>): void {
    const current = this.currentRecord;
    // KIP-837: a partitioner that chose no partition drops the record, as an operator would.
    if (!this.errors.send(sink, sink.topicOf(record, current), record, current))
      this.recordDropped(sink, 'the StreamPartitioner chose no partition');
  }

  stateStore(node: RuntimeNodeRef, name: string): StateStore {
    // As in Kafka Streams, every task may read a global store without being connected to it.
    const global =
      this.options.topology.internalBuilder.isGlobalStore(name) && this.options.globalStore?.(name);
    if (global) return global;
    (node as ProcessorRuntimeNode).checkStoreAccess(name);
    return this.stateManager.store(name);
  }

  recordMetadata(): RecordMetadata | undefined {
    const r = this.currentRecord;
    return r === undefined ? undefined : { topic: r.topic, partition: r.partition, offset: r.offset };
  }

  recordCache<T>(storeName: string, forward: (first: T, latest: T) => void): RecordCache<T> | undefined {
    return this.caches.create(storeName, forward);
  }

  requestCommit(): void {
    this.point.wantsCommit = true;
  }

  onCommitAndRollback(listener: CommitListener): void {
    this.point.listen(listener);
  }

  streamTime(): number {
    return this.point.streamTimeMs;
  }

  wallClockTime(): number {
    return this.now();
  }

  // ---- punctuation (task-punctuator.ts) ----

  schedule(
    node: RuntimeNodeRef,
    intervalMs: number,
    type: PunctuationType,
    punctuator: Punctuator,
  ): Cancellable {
    return this.punctuator.schedule(node as ProcessorRuntimeNode, intervalMs, type, punctuator);
  }

  /** Fires the wall-clock punctuators due at `now`. */
  punctuateWallClock(now: number): void | Promise<void> {
    return this.punctuator.wallClock(now);
  }

  // ---- commit ----

  get commitNeeded(): boolean {
    return this.point.commitNeeded;
  }

  get commitRequested(): boolean {
    return this.point.wantsCommit;
  }

  /** A record of a failed send (see TaskExceptionHandling.sendFailed). */
  sendFailed(error: RecordSendError, record: OutputRecord, askHandler: boolean): Promise<void> {
    return this.errors.sendFailed(error, record, askHandler);
  }

  /** Records dropped since the task was created: by an exception handler, or by an operator. */
  get droppedRecordsTotal(): number {
    return this.deserializer.droppedRecordsTotal + this.errors.droppedRecordsTotal + this.operatorDrops.total;
  }

  recordDropped(node: RuntimeNodeRef, reason: string): void {
    this.operatorDrops.record(node, reason, this.currentRecord);
    this.options.onOperatorDrop?.();
  }

  get processedRecordsTotal(): number {
    return this.processedRecords;
  }

  /** Before the changelog and the output are sent: the record caches forward what they hold. */
  prepareCommit(): Promise<void> {
    return this.caches.flush();
  }

  /** Pending store changes for the changelog (last value per key, null = tombstone); does not clear. */
  changelogRecords(): ChangelogChange[] {
    return this.stateManager.changelogRecords();
  }
  /** The same, one at a time (what the runtime encodes at commit). */
  changelogChanges(): IterableIterator<ChangelogChange> {
    return this.stateManager.changelogChanges();
  }

  /** Next offset (last processed + 1) of each input partition processed since creation. */
  consumedOffsets(): CheckpointEntry[] {
    return this.point.consumedOffsets(this.id.partition);
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
    // A commit path that forgot awaitInFlight() would commit offsets past unfinished records.
    if (this.hasInFlight())
      throw new StreamsError(`Task ${this.idString}: commit while records are in flight`);
    await this.stateManager.commit(changelogOffsets);
    this.point.committed(offsetsCommitted);
  }

  /** Drops the buffered store writes and the offsets consumed since the last commit. */
  rollback(): void {
    this.caches.clear();
    this.stateManager.rollback();
    this.point.rollback();
    this.work.clear();
    this.asyncWork.abandon();
    this.currentRecord = undefined;
  }

  /** Closes processors and stores; commits nothing (buffered writes are dropped). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.asyncWork.abandon();
    let firstError = await this.processors.close();
    this.caches.clear();
    const storeError = await this.stateManager.close();
    firstError ??= storeError;
    if (firstError !== undefined) throw firstError;
  }
}

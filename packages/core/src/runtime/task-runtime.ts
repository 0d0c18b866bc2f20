// One task as the stream thread runs it: the StreamTask (processors and stores), its producer,
// its output buffer, and its input positions (where it is, and where its last commit was).
import { join } from 'node:path';
import {
  type CheckpointEntry,
  TransactionalBuffer,
  type UncommittedBytesBudget,
} from '@kstreams/state-store';
import type { Logger } from 'pino';
import type { ResolvedConfig } from '../config/streams-config.ts';
import { type StreamsAdmin, type TopicPartitionOffset, UNSTABLE_OFFSETS_WAIT_MS } from '../kafka/admin.ts';
import { toAuthorizationError } from '../kafka/authorization.ts';
import { fetchedMessageReader } from '../kafka/consumer.ts';
import { kafkajsCapabilities } from '../kafka/kafkajs-patches.ts';
import { type SendFailureHandler, type TaskProducer, TransactionalTaskProducer } from '../kafka/producers.ts';
import { MeteredTransactionalBuffer } from '../metrics/metered-buffer.ts';
import type { StreamsMetricsRecorder } from '../metrics/streams-metrics-recorder.ts';
import type { AutoOffsetReset } from '../processor/auto-offset-reset.ts';
import { parseTaskId } from '../processor/internals/assignment/sticky-task-assignor.ts';
import { maxFetchWaitMs, PartitionGroup } from '../processor/internals/partition-group.ts';
import { BufferingRecordCollector, type PartitionCountOf } from '../processor/internals/record-collector.ts';
import type { RecordQueue } from '../processor/internals/record-queue.ts';
import { type InputRecord, topicPartitionKey } from '../processor/internals/records.ts';
import { prepareFetched, stampingReader } from '../processor/internals/source-timestamps.ts';
import { StreamTask } from '../processor/internals/stream-task.ts';
import type { Topology } from '../processor/topology.ts';
import { levelBytesStores } from '../state/bytes-stores.ts';
import type { ThreadCache } from '../state/internals/thread-cache.ts';
import type { StateStore } from '../state/state-store.ts';
import type { StreamsMetrics } from './metrics.ts';
import { resetOffsets } from './offset-reset.ts';
import { SourceNodeMetrics, sourceNodesByTopic } from './source-node-metrics.ts';
import { lockTaskDirectory, taskDirectory, unlockTaskDirectory } from './state-directory.ts';
import type { ActiveTask, TaskState } from './task.ts';

export interface TaskRuntimeDeps {
  config: ResolvedConfig;
  topology: Topology;
  admin: StreamsAdmin;
  metrics: StreamsMetrics;
  recorder: StreamsMetricsRecorder;
  logger: Logger;
  /** The instance's one bound on uncommitted store bytes (maxUncommittedBytes), shared by its tasks. */
  uncommittedBytes: UncommittedBytesBudget;
  /** The instance's record cache (statestoreCacheMaxBytes), shared by its tasks. */
  threadCache: ThreadCache;
  globalStore?: ((storeName: string) => StateStore | undefined) | undefined;
  producerFor(taskId: string): TaskProducer;
  /** Where an input topic starts without a committed offset (offset-reset.ts). */
  offsetResetPolicy: (topic: string) => AutoOffsetReset;
  /** A task's async operators made room or finished: the thread gives it records and flushes it. */
  onAsyncProgress?: ((taskId: string) => void) | undefined;
  /** Topics whose partition count is known get their records partitioned and encoded at the sink. */
  partitionCountOf?: PartitionCountOf | undefined;
}

export class TaskRuntime implements ActiveTask {
  readonly kind = 'active';
  readonly task: StreamTask;
  readonly producer: TaskProducer;
  readonly collector: BufferingRecordCollector;
  /** When flush() last sent output (the async operators' flush rule, task-processing.ts' outputDue). */
  lastSendMs = Date.now();
  readonly inputPartitions: Array<{ topic: string; partition: number }>;
  state: TaskState = 'created';
  checkpoint: CheckpointEntry[] = [];
  consecutiveFailures = 0;
  /** Fetched, not yet processed input, taken in timestamp order across the task's partitions. */
  readonly partitionGroup: PartitionGroup;
  /** Debug level only: the source nodes' process sensors. */
  readonly sourceNodes: SourceNodeMetrics | undefined;
  private readonly committed = new Map<string, number>();
  /** The output send in flight while the task goes on processing. */
  private sending?: Promise<unknown>;
  private readonly log: Logger;
  private readonly dir: string;

  constructor(
    readonly id: string,
    private readonly deps: TaskRuntimeDeps,
  ) {
    const { config, topology, metrics } = deps;
    const [subtopology, partition] = parseTaskId(id);
    this.log = deps.logger.child({ taskId: id });
    this.producer = deps.producerFor(id);
    this.collector = new BufferingRecordCollector(deps.partitionCountOf);
    const dir = taskDirectory(config, id);
    this.dir = dir;
    this.task = new StreamTask({
      id: { subtopology, partition },
      applicationId: config.applicationId,
      topology,
      collector: this.collector,
      storeFactory: (_storeName, _taskId, builder) => builder.bytesStore(levelBytesStores(dir)),
      checkpointFile: join(dir, '.checkpoint'),
      uncommittedBytes: deps.uncommittedBytes,
      threadCache: deps.threadCache,
      defaultKeySerde: config.defaultKeySerde,
      defaultValueSerde: config.defaultValueSerde,
      defaultTimestampExtractor: config.defaultTimestampExtractor,
      logger: this.log,
      ...(deps.globalStore === undefined ? {} : { globalStore: deps.globalStore }),
      newBuffer: (storeName, bytes, bufferOptions) => {
        const ops = deps.recorder.storeOperations(id, storeName);
        return ops
          ? new MeteredTransactionalBuffer(bytes, bufferOptions, ops)
          : new TransactionalBuffer(bytes, bufferOptions);
      },
      onPunctuate: (punctuators) => deps.recorder.punctuated(punctuators),
      ...(deps.onAsyncProgress === undefined ? {} : { onAsyncProgress: () => deps.onAsyncProgress?.(id) }),
      onAsyncCall: (ms, timedOut) => {
        metrics.asyncCompleted++;
        if (timedOut) metrics.asyncTimeouts++;
        deps.recorder.asyncCalled(id, ms, timedOut);
      },
      onOperatorDrop: () => deps.recorder.dropped(id),
      errorHandling: {
        handlers: config.exceptionHandlers,
        maxRecordBytes: config.producer.maxRequestSize,
        partitionCountOf: (topic) => deps.admin.partitionCountOf(topic),
        onDropped: (_kind, deadLettered) => {
          metrics.skippedRecords++;
          if (deadLettered) metrics.deadLetterRecords++;
          deps.recorder.dropped(id);
        },
      },
    });
    this.inputPartitions = this.task.inputPartitions;
    this.partitionGroup = new PartitionGroup(this.inputPartitions, {
      maxTaskIdleMs: config.maxTaskIdleMs,
      // Fetches tell every input partition's lag (kafka/fetch-lag.ts): wait as long as it is
      // above 0. Without that hook a batch tells it only with records, so the wait is bounded.
      maxFetchWaitMs: kafkajsCapabilities().fetchLag
        ? undefined
        : maxFetchWaitMs(config.maxTaskIdleMs, config.consumer.maxWaitTimeMs),
      reader: fetchedMessageReader,
      onWaitForLag: (queue, lag) =>
        this.log.debug(
          { topic: queue.topic, partition: queue.partition, lag },
          'lag of the partition is above 0, but no data is buffered locally: waiting to buffer some records',
        ),
      // Kafka Streams logs this at INFO on every call; once per episode at debug keeps a join with
      // a quiet table (maxTaskIdleMs 0) from logging for each record.
      onEnforcedProcessing: (waitedFor, nowMs) =>
        this.log.debug(
          {
            partitions: waitedFor.map((q) => `${q.topic}-${q.partition}`),
            maxTaskIdleMs: config.maxTaskIdleMs,
            wallClockTime: nowMs,
          },
          'continuing to process although some partitions have no data buffered: there may be out-of-order processing for this task',
        ),
      readerFor: (topic, partition) => {
        const timestamps = this.task.timestamps(topic);
        return timestamps && stampingReader(fetchedMessageReader, topic, partition, timestamps);
      },
    });
    if (deps.recorder.debug) {
      const nodes = sourceNodesByTopic(topology, config.applicationId, subtopology);
      this.sourceNodes = new SourceNodeMetrics(
        deps.recorder,
        id,
        this.inputPartitions.flatMap((p) => {
          const queue = this.partitionGroup.queue(p.topic, p.partition);
          const node = nodes.get(p.topic);
          return queue && node ? [{ queue, node }] : [];
        }),
      );
    }
  }

  /**
   * Fences the task's previous owner (exactly_once), then reads the committed offsets (so that a
   * zombie cannot commit after we read them) and opens the stores.
   */
  async initialize(): Promise<void> {
    lockTaskDirectory(this.dir, this, this.id);
    if (this.producer instanceof TransactionalTaskProducer) {
      const { transactionalId } = this.producer;
      await this.producer.initialize().catch((error: unknown) => {
        throw toAuthorizationError(error, this.deps.config, { transactionalId }) ?? error;
      });
      this.deps.logger.debug({ taskId: this.id }, 'task producer initialized');
    }
    const topics = [...new Set(this.inputPartitions.map((p) => p.topic))];
    const { admin, config } = this.deps;
    // A live transaction cannot outlast its timeout (the coordinator aborts it, and the default
    // cleanup runs every 10 s): offsets still pending after that belong to none, a hanging
    // transaction (a late TxnOffsetCommit after its transaction ended, seen once after a broker
    // restart; KIP-890). They never clear, so the task reads what is committed rather than wait.
    const waitMs = Math.max(UNSTABLE_OFFSETS_WAIT_MS, config.producer.transactionTimeoutMs + 20_000);
    const onStillUnstable = (partitions: Array<{ topic: string; partition: number }>) =>
      this.deps.logger.warn(
        { taskId: this.id, partitions, waitedMs: waitMs },
        'committed offsets still pending past the transaction timeout (a hanging transaction on the broker); starting from the last stable commit',
      );
    this.setCommitted(
      await admin.stableCommittedOffsets(config.applicationId, this.inputPartitions, {
        waitMs,
        onStillUnstable,
      }),
    );
    // Offsets really committed (not reset ones): what the stores hold at least (their positions).
    const committedBefore = this.committedPositions();
    if (this.committed.size < this.inputPartitions.length) {
      // Never committed: start where the topic's offset reset policy says. The position must be
      // explicit: the consumer's own position may be where an earlier owner of this task stopped
      // without committing.
      const missing = this.inputPartitions.filter(
        (p) => !this.committed.has(topicPartitionKey(p.topic, p.partition)),
      );
      this.setCommitted(await resetOffsets(missing, this.deps.offsetResetPolicy, admin, Date.now()));
    }
    // Where each partition's log ends: the partition group waits for input known to exist.
    for (const o of await admin.endOffsets(topics))
      this.partitionGroup.updateEndOffset(o.topic, o.partition, o.offset);
    this.checkpoint = await this.task.initializeStores(committedBefore);
    this.deps.logger.debug(
      { taskId: this.id, startOffsets: Object.fromEntries(this.committed), checkpoint: this.checkpoint },
      'task initialized',
    );
  }

  get commitNeeded(): boolean {
    return this.task.commitNeeded;
  }

  get commitRequested(): boolean {
    return this.task.commitRequested;
  }

  initializeTopology(): Promise<void> {
    return this.task.initializeTopology();
  }

  process(record: InputRecord): void | Promise<void> {
    return this.task.process(record);
  }

  punctuateWallClock(nowMs: number): void | Promise<void> {
    return this.task.punctuateWallClock(nowMs);
  }

  consumedOffsets(): TopicPartitionOffset[] {
    return this.task.consumedOffsets();
  }

  clearOutput(): void {
    this.collector.clear();
  }

  awaitInFlight(): Promise<void> {
    return this.task.awaitInFlight();
  }

  /** Takes the offsets of this task's input partitions that have none yet. */
  private setCommitted(offsets: TopicPartitionOffset[]): void {
    const mine = new Set(this.inputPartitions.map((p) => topicPartitionKey(p.topic, p.partition)));
    for (const o of offsets) {
      const key = topicPartitionKey(o.topic, o.partition);
      if (mine.has(key) && o.offset >= 0 && !this.committed.has(key)) this.committed.set(key, o.offset);
    }
  }

  /**
   * Where the consumer must start each input partition, and go back to after a rollback: the last
   * commit, or the earliest offset before the first commit.
   */
  startPositions(): TopicPartitionOffset[] {
    const positions = this.inputPartitions.map((p) => {
      const key = topicPartitionKey(p.topic, p.partition);
      const offset = this.committed.get(key);
      if (offset === undefined) throw new Error(`task ${this.id} has no start offset for ${key}`);
      return { ...p, offset };
    });
    // Fetched records not processed yet are fetched again from there.
    this.partitionGroup.clear(positions);
    return positions;
  }

  /** The offsets of the task's last commit (or its start offsets). */
  committedPositions(): TopicPartitionOffset[] {
    return this.inputPartitions.flatMap((p) => {
      const offset = this.committed.get(topicPartitionKey(p.topic, p.partition));
      return offset === undefined ? [] : [{ ...p, offset }];
    });
  }

  /** The offset of the task's last commit (or its start offset) for `key`. */
  committedOffset(key: string): number | undefined {
    return this.committed.get(key);
  }

  /** The next offset the fetch hands to the task for an input partition (-1: none yet). */
  position(topic: string, partition: number): number {
    return this.partitionGroup.queue(topic, partition)?.fetchPosition ?? -1;
  }

  /**
   * The next offset to process of an input partition (the last processed + 1, else the last
   * commit's): what lag is measured from, since fetched records may still wait in the queue.
   */
  processedPosition(topic: string, partition: number): number {
    const consumed = this.task.consumedOffsets().find((o) => o.topic === topic && o.partition === partition);
    return consumed?.offset ?? this.committed.get(topicPartitionKey(topic, partition)) ?? -1;
  }

  /** Schema fetches the fetched messages `from`..`to` need before a timestamp extractor's queue stamps them. */
  prepareFetched(topic: string, partition: number, messages: readonly unknown[], from: number, to: number) {
    const timestamps = this.task.timestamps(topic);
    return (
      timestamps && prepareFetched(timestamps, fetchedMessageReader, { topic, partition, messages, from, to })
    );
  }

  /** The next record to process, in timestamp order; undefined while the task has none or waits. */
  nextRecord(nowMs: number): { record: InputRecord; queue: RecordQueue } | undefined {
    // Back-pressure: an async operator at maxInFlight; its partitions fill up and pause.
    if (!this.task.canTakeRecord) return undefined;
    return this.partitionGroup.readyToProcess(nowMs) ? this.partitionGroup.nextRecord() : undefined;
  }

  /** After a record of the queue was processed: markers behind the queue's last record count as consumed. */
  recordProcessed(queue: RecordQueue): void {
    if (queue.skipAfterDrain === undefined || !queue.isEmpty) return;
    this.task.skipTo(queue.topic, queue.skipAfterDrain);
    queue.skipAfterDrain = undefined;
  }

  /**
   * Offsets `first`..`last` of an input partition hold nothing to process (transaction markers,
   * aborted records): when the task stands inside that range, it moves past it.
   */
  skipControlRecords(topic: string, partition: number, first: number, last: number): boolean {
    const queue = this.partitionGroup.queue(topic, partition);
    if (queue === undefined) return false;
    const at = queue.fetchPosition;
    if (at < first || at > last) return false;
    queue.fetchPosition = last + 1;
    // The consumed offset must not pass records still waiting in the queue.
    if (queue.isEmpty) this.task.skipTo(topic, last + 1);
    else queue.skipAfterDrain = last + 1;
    return true;
  }

  /**
   * Sends the buffered output (under exactly_once into the task's open transaction); the task goes
   * on processing while the send is acknowledged. Its failure is the task's: it surfaces at the
   * task's next flush or commit (`settleSend`), which roll the task back. Under at_least_once too:
   * awaiting each send held the stream thread for a broker round trip, during which no task took
   * records; in the async benchmark's timer-1000 (2026-12-06) the sends held it 55% of the time
   * and its tasks had 1,257 of their 4,000 calls in flight.
   */
  async flush(): Promise<void> {
    if (this.collector.size === 0) return;
    this.lastSendMs = Date.now();
    const output = this.collector.drain();
    // One send in flight per task: the next waits for it (a task that outpaces the broker is held
    // back here), and a transactional producer must not have two at once (kafkajs numbers an
    // idempotent producer's batches when it builds the request). The shared at_least_once
    // producer runs the tasks' sends one after another.
    await this.settleSend();
    const sending = this.producer.send(output, this.sendFailed);
    // A failure surfaces at the next flush or commit, which roll the task back.
    sending.catch(() => {});
    this.sending = sending;
  }

  /** A record of a failed send: the production exception handler's (Kafka Streams' recordSendError). */
  private readonly sendFailed: SendFailureHandler = (error, record, askHandler) =>
    this.task.sendFailed(error, record, askHandler);

  /** Waits for the send in flight; throws its failure. */
  private async settleSend(): Promise<void> {
    const sending = this.sending;
    this.sending = undefined;
    if (sending) await sending;
  }

  /** Sends the remaining output and the store changes; returns the changelog end offsets. */
  async sendForCommit(): Promise<TopicPartitionOffset[]> {
    await this.settleSend();
    await this.task.prepareCommit();
    const now = Date.now();
    for (const c of this.task.changelogChanges()) {
      this.collector.send({
        topic: c.topic,
        partition: c.partition,
        key: c.key,
        value: c.value,
        timestamp: c.timestamp ?? now,
        ...(c.headers === undefined ? {} : { headers: c.headers }),
      });
    }
    return this.producer.send(this.collector.drain(), this.sendFailed);
  }

  async commitTransaction(groupId: string): Promise<void> {
    const offsets = this.task.consumedOffsets();
    const ends = await this.sendForCommit();
    await this.producer.commitTransaction(groupId, offsets);
    await this.postCommit(ends, { offsets });
  }

  /** After Kafka accepted the commit: the stores apply their buffers and the checkpoint moves. */
  async postCommit(
    changelogEnds: TopicPartitionOffset[],
    {
      offsets = this.task.consumedOffsets(),
      offsetsCommitted = true,
    }: { offsets?: TopicPartitionOffset[]; offsetsCommitted?: boolean } = {},
  ): Promise<void> {
    await this.task.postCommit(changelogEnds, { offsetsCommitted });
    for (const o of offsets) this.committed.set(topicPartitionKey(o.topic, o.partition), o.offset);
    this.consecutiveFailures = 0;
  }

  /** Drops everything since the last commit. False when the producer could not abort (it is dead). */
  async rollback(): Promise<boolean> {
    this.collector.clear();
    // The transaction is aborted after its last send has settled, whatever its outcome.
    await this.settleSend().catch(() => {});
    let ok = true;
    try {
      await this.producer.abortTransaction();
    } catch (error) {
      this.log.warn({ err: error }, 'abort failed');
      ok = false;
    }
    this.task.rollback();
    return ok;
  }

  async close({ dirty }: { dirty: boolean }): Promise<void> {
    if (this.state === 'closed') return;
    this.state = 'closed';
    if (dirty) await this.rollback().catch(() => {});
    else await this.settleSend().catch((e) => this.log.warn({ err: e }, 'the last send failed'));
    await this.task.close().catch((e) => this.log.warn({ err: e }, 'closing the task failed'));
    unlockTaskDirectory(this.dir, this);
    if (this.producer instanceof TransactionalTaskProducer) await this.producer.close();
  }
}

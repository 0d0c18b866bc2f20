// The stream thread's batching: a fetched batch is buffered into its task's queues a slice at a
// time and processed in timestamp order; output is flushed and the group heartbeated every slice,
// a batch yields after a while, and a partition whose queue is full is paused until it drains.
import type { InputBatch, MainConsumer } from '../kafka/consumer.ts';
import { fetchedOffset } from '../kafka/fetch-decoding.ts';
import type { StreamsMetricsRecorder } from '../metrics/streams-metrics-recorder.ts';
import { topicPartitionKey } from '../processor/internals/records.ts';
import type { StreamsMetrics } from './metrics.ts';
import type { TaskManager } from './task-manager.ts';
import type { TaskRuntime } from './task-runtime.ts';

/** Records processed between flushes and heartbeats inside one fetched batch. */
export const BATCH_SLICE = 1_000;
/** Kafka Streams' buffered.records.per.partition: fetched records a task holds per input partition. */
export const MAX_BUFFERED_PER_PARTITION = 1_000;
/** A fetched batch yields the thread after this long, so commits and punctuation are not starved. */
export const MAX_BATCH_MS = 500;
/** Output of a task with async calls in flight is sent once this many records wait... */
export const ASYNC_FLUSH_RECORDS = 500;
/** ... or, at the tick, once its last send is this old. */
export const ASYNC_FLUSH_MS = 1_000;

/**
 * Whether a task's output goes out now. An at_least_once send holds the stream thread for a broker
 * round trip, and the finished calls of every task wait meanwhile for new records; sent at every
 * 100 ms tick by each task in turn, the sends held the thread for over half of the async
 * benchmark's run (2026-12-06). A task with calls in flight therefore sends in batches or once a
 * second; one without sends at once (its output is all there is until new records come).
 */
export function outputDue(task: { waiting: number; inFlight: boolean; sinceSendMs: number }): boolean {
  if (task.waiting === 0) return false;
  return !task.inFlight || task.waiting >= ASYNC_FLUSH_RECORDS || task.sinceSendMs >= ASYNC_FLUSH_MS;
}

/** What the tick's and wake-ups' flush rule reads of a task (TaskRuntime has it). */
export interface AsyncOutputTask {
  collector: { size: number };
  task: { hasInFlight(): boolean };
  /** When the task last sent output (ms since the epoch). */
  lastSendMs: number;
}

/** What the batching needs of an active task (task-runtime.ts' TaskRuntime has it). */
export type ProcessingTask = Pick<
  TaskRuntime,
  | 'id'
  | 'state'
  | 'commitRequested'
  | 'partitionGroup'
  | 'sourceNodes'
  | 'process'
  | 'flush'
  | 'nextRecord'
  | 'prepareFetched'
  | 'recordProcessed'
  | 'skipControlRecords'
>;

export interface TaskProcessingDeps {
  consumer: Pick<MainConsumer, 'pause' | 'resume'>;
  manager: Pick<TaskManager, 'taskIdFor' | 'missing' | 'createLater'> & {
    tasks: Map<string, ProcessingTask>;
    onTaskError(
      rt: ProcessingTask,
      error: unknown,
      where: 'processing' | 'producer',
      record?: { topic: string; partition: number; offset: number },
    ): Promise<void>;
  };
  metrics: StreamsMetrics;
  recorder: StreamsMetricsRecorder;
  /** The thread is closing or failed: batches are left alone. */
  isStopped(): boolean;
  /** A processor asked for a commit: the thread commits at its next tick. */
  onCommitRequested(): void;
}

export class TaskProcessing {
  /**
   * Partitions paused because their task's queue is full (Kafka Streams pauses a partition past
   * buffered.records.per.partition). Fetching on would hand over the same records again at once:
   * a task waiting for another partition spun a core so.
   */
  private readonly pausedFull = new Map<string, { topic: string; partition: number }>();

  constructor(private readonly deps: TaskProcessingDeps) {}

  async processBatch(batch: InputBatch): Promise<void> {
    if (this.deps.isStopped()) return;
    const taskId = this.deps.manager.taskIdFor(batch.topic, batch.partition);
    const rt = taskId ? this.deps.manager.tasks.get(taskId) : undefined;
    if (rt?.state !== 'running') {
      // Not ready (being created or restored, or fenced): leave the position where it is; the
      // partition resumes when its task is running.
      this.deps.consumer.pause([{ topic: batch.topic, partition: batch.partition }]);
      // Only task creation resumes a partition: a task that is ours but neither running nor being
      // created (no path should leave one so, but a pause must never be left without an owner)
      // is created now.
      if (taskId && !rt && this.deps.manager.missing(taskId)) this.deps.manager.createLater([taskId], 0);
      return;
    }
    // A seek is set only by this thread's own sections (which run one at a time), so a batch that
    // is not stale when it starts stays valid until we roll back, which ends the batch.
    if (batch.isStale()) return;
    this.deps.recorder.polled();
    const group = rt.partitionGroup;
    const queue = group.queue(batch.topic, batch.partition);
    if (queue === undefined) return;
    if (batch.endOffset !== undefined) group.updateEndOffset(batch.topic, batch.partition, batch.endOffset);
    const started = Date.now();
    const messages = batch.messages;
    let i = 0;
    // Buffer a slice, process what the task is ready for, repeat: a task with one input partition
    // goes through the batch as before; one with several stops when this partition's queue is full
    // while it waits for another: the partition is paused, and the rest of the batch is fetched
    // again once the queue has room.
    while (i < messages.length && rt.state === 'running') {
      let resolved = -1;
      const sliceStart = i;
      for (; i < messages.length && queue.size < MAX_BUFFERED_PER_PARTITION; i++) {
        const m = messages[i]!;
        const offset = fetchedOffset(m);
        // kafkajs restarts from the group's committed offset after a rejoin; records before the
        // task's fetch position are queued or already in its (possibly uncommitted) state.
        if (offset >= queue.fetchPosition) group.addFetched(queue, m, offset);
        resolved = offset;
      }
      // Once per slice: kafkajs' resolveOffset does Long arithmetic on strings (3% of a word
      // count's CPU when called per record), and the position only needs the slice's last offset.
      if (resolved >= 0) batch.resolveOffset(resolved);
      const pending = rt.prepareFetched(batch.topic, batch.partition, messages, sliceStart, i);
      if (pending !== undefined) await pending;
      const outcome = await this.processTask(rt, started, () => batch.heartbeat());
      if (outcome === 'failed') return;
      if (outcome === 'yield' || queue.size >= MAX_BUFFERED_PER_PARTITION) break;
    }
    if (queue.size >= MAX_BUFFERED_PER_PARTITION && rt.state === 'running') {
      const tp = { topic: batch.topic, partition: batch.partition };
      this.pausedFull.set(topicPartitionKey(tp.topic, tp.partition), tp);
      this.deps.consumer.pause([tp]);
    }
    const last = messages.at(-1);
    // Markers after the last record (the commit of the transaction that wrote it) belong to what
    // the task has consumed once it processed that record; else its committed offset stays short
    // of the log end.
    if (last && i === messages.length && rt.state === 'running') {
      const after = Number(last.offset) + 1;
      if (rt.skipControlRecords(batch.topic, batch.partition, after, batch.lastOffset))
        batch.resolveOffset(batch.lastOffset);
    }
    if (!(await this.flushTask(rt))) return;
    if (rt.commitRequested) this.deps.onCommitRequested();
  }

  /**
   * Processes the task's buffered records in timestamp order while it is ready; 'yield' when its
   * turn is up, 'failed' when it was rolled back.
   */
  async processTask(
    rt: ProcessingTask,
    started: number,
    heartbeat?: () => Promise<void>,
  ): Promise<'idle' | 'yield' | 'failed'> {
    const from = Date.now();
    const counter = { processed: 0 };
    const enforcedBefore = rt.partitionGroup.enforcedProcessingTotal;
    try {
      return await this.processRecords(rt, started, counter, heartbeat);
    } finally {
      // Recorded once per turn, not per record, so that metrics stay off the hot path.
      if (counter.processed > 0) {
        this.deps.recorder.processed(rt.id, counter.processed, Date.now() - from);
        const enforced = rt.partitionGroup.enforcedProcessingTotal - enforcedBefore;
        this.deps.metrics.enforcedProcessing += enforced;
        this.deps.recorder.enforcedProcessing(rt.id, enforced);
        rt.sourceNodes?.report();
        this.resumeDrained();
      }
    }
  }

  /** Resumes the partitions paused for a full queue whose queue has room again. */
  resumeDrained(): void {
    if (this.pausedFull.size === 0) return;
    const resume: Array<{ topic: string; partition: number }> = [];
    for (const [key, tp] of this.pausedFull) {
      const rt = this.deps.manager.tasks.get(this.deps.manager.taskIdFor(tp.topic, tp.partition) ?? '');
      if (rt?.state !== 'running') {
        // Closed or being created again: the task manager pauses its partitions and resumes them
        // when the task runs.
        this.pausedFull.delete(key);
        continue;
      }
      const queue = rt.partitionGroup.queue(tp.topic, tp.partition);
      if (queue === undefined || queue.size < MAX_BUFFERED_PER_PARTITION) {
        this.pausedFull.delete(key);
        resume.push(tp);
      }
    }
    this.deps.consumer.resume(resume);
  }

  private async processRecords(
    rt: ProcessingTask,
    started: number,
    counter: { processed: number },
    heartbeat?: () => Promise<void>,
  ): Promise<'idle' | 'yield' | 'failed'> {
    while (rt.state === 'running') {
      const next = rt.nextRecord(Date.now());
      if (next === undefined) return 'idle';
      const { record } = next;
      try {
        const r = rt.process(record);
        if (r) await r;
      } catch (error) {
        await this.deps.manager.onTaskError(rt, error, 'processing', record);
        return 'failed';
      }
      rt.recordProcessed(next.queue);
      this.deps.metrics.processedRecords++;
      if (++counter.processed % BATCH_SLICE === 0) {
        // Bounded work per turn: output goes out in moderate requests, the group sees
        // heartbeats, and commits and punctuators get their turn.
        if (!(await this.flushTask(rt))) return 'failed';
        await heartbeat?.();
        if (Date.now() - started >= MAX_BATCH_MS) return 'yield';
      }
    }
    return 'failed';
  }

  /** The tick's and async wake-ups' flush: at once without calls in flight, else by outputDue. */
  async flushDue(rt: ProcessingTask & AsyncOutputTask, now: number): Promise<boolean> {
    const state = {
      waiting: rt.collector.size,
      inFlight: rt.task.hasInFlight(),
      sinceSendMs: now - rt.lastSendMs,
    };
    return outputDue(state) ? this.flushTask(rt) : true;
  }

  async flushTask(rt: ProcessingTask): Promise<boolean> {
    try {
      await rt.flush();
      return true;
    } catch (error) {
      await this.deps.manager.onTaskError(rt, error, 'producer');
      return false;
    }
  }
}

// The consume-process-produce loop: routes each input batch to the task that owns its partition,
// punctuates, and decides when to commit; the TaskManager owns the tasks themselves.

import { toAuthorizationError } from '../kafka/authorization.ts';
import { explainRefusal } from '../kafka/client.ts';
import { type InputBatch, MainConsumer } from '../kafka/consumer.ts';
import { fetchedOffset } from '../kafka/fetch-decoding.ts';
import { topicPartitionKey } from '../processor/internals/records.ts';
import { Mutex } from './mutex.ts';
import { type StreamThreadDeps, TaskManager } from './task-manager.ts';
import type { TaskRuntime } from './task-runtime.ts';
import { TaskWatchdog } from './task-watchdog.ts';

export type { StreamThreadDeps } from './task-manager.ts';

/** Records processed between flushes and heartbeats inside one fetched batch. */
const BATCH_SLICE = 1_000;
/** Kafka Streams' buffered.records.per.partition: fetched records a task holds per input partition. */
const MAX_BUFFERED_PER_PARTITION = 1_000;
/** A fetched batch yields the thread after this long, so commits and punctuation are not starved. */
const MAX_BATCH_MS = 500;

export class StreamThread {
  private readonly mutex = new Mutex((label, heldMs) =>
    this.log.warn({ section: label, heldMs }, 'stream thread busy for long; the consumer is not polling'),
  );
  private readonly consumer: MainConsumer;
  private readonly manager: TaskManager;
  private closing = false;
  private failed = false;
  private tick?: NodeJS.Timeout;
  private readonly watchdog?: TaskWatchdog;
  private lastCommit = Date.now();
  private commitSoon = false;
  private readonly log: StreamThreadDeps['logger'];
  /**
   * Partitions paused because their task's queue is full (Kafka Streams pauses a partition past
   * buffered.records.per.partition). Fetching on would hand over the same records again at once:
   * a task waiting for another partition spun a core so.
   */
  private readonly pausedFull = new Map<string, { topic: string; partition: number }>();

  constructor(private readonly deps: StreamThreadDeps) {
    const { config, topology } = deps;
    this.log = deps.logger;
    this.consumer = new MainConsumer(deps.kafka, config, {
      subtopologies: () => topology.subtopologies(config.applicationId),
      ownedTasks: () => [...this.manager.tasks.keys()],
      applicationServer: config.applicationServer,
    });
    this.manager = new TaskManager({
      ...deps,
      consumer: this.consumer,
      mutex: this.mutex,
      isClosing: () => this.closing,
      fatal: (e) => this.fatal(e),
    });
    if (config.taskStallTimeoutMs > 0)
      this.watchdog = new TaskWatchdog({
        ...deps,
        timeoutMs: config.taskStallTimeoutMs,
        tasks: () => (this.closing || this.failed ? [] : this.manager.runningTasks()),
        paused: () => this.consumer.paused(),
        inThread: (fn) => this.mutex.run(fn, 'task watchdog'),
        recreate: (rt) => this.manager.recreate(rt, 0),
      });
  }

  /** The tasks this thread runs now, with their stores (for interactive queries). */
  runningTasks(): TaskRuntime[] {
    return this.manager.runningTasks();
  }

  /** The tasks the group's last assignment gave this thread, running or not (for the metadata). */
  assignedTaskIds(): string[] {
    return [...this.manager.assigned].sort();
  }

  async start(): Promise<void> {
    await this.manager.connect();
    await this.consumer.start(this.manager.sourceTopics(), {
      onBatch: (batch) => this.mutex.run(() => this.processBatch(batch), 'processBatch'),
      onAssignment: (memberId, assignment, groupGeneration) => {
        void this.mutex
          .run(async () => {
            await this.manager.onAssignment(memberId, assignment, groupGeneration);
            this.rebalancing = false;
            // What a wait knew of the other partitions is as old as the rebalance: wait afresh.
            for (const t of this.manager.runningTasks()) t.partitionGroup.restartWaits();
          }, 'onAssignment')
          .catch((e) => this.fatal(e));
      },
      onRebalancing: () => {
        this.rebalancing = true;
        // kafkajs has no revoke callback: commit as soon as a rebalance starts, so that the tasks
        // that move carry as little uncommitted work as possible.
        void this.mutex
          .run(() => this.commitAll('rebalance'), 'commit on rebalance')
          .catch((e) => this.fatal(e));
      },
      onControlRecords: (topic, partition, first, last) => {
        void this.mutex
          .run(async () => {
            const rt = this.manager.tasks.get(this.manager.taskIdFor(topic, partition) ?? '');
            if (rt?.state === 'running') rt.skipControlRecords(topic, partition, first, last);
          }, 'control records')
          .catch((e) => this.fatal(e));
      },
      onFetched: (topic, partition, highWatermark) =>
        this.deps.recorder.fetched(topic, partition, highWatermark),
      // Outside the mutex: it only notes the partition's end, which no section reads across an await.
      onFetchedEnd: (topic, partition, endOffset, emptyAt) => {
        const rt = this.manager.tasks.get(this.manager.taskIdFor(topic, partition) ?? '');
        rt?.partitionGroup.updateEndOffset(topic, partition, endOffset, emptyAt);
      },
      onCrash: (error, willRestart) => {
        // The group's or the input topics' ACLs: a restart would be refused the same way.
        const denied = toAuthorizationError(explainRefusal(this.deps.kafka, error), this.deps.config, {
          topics: this.manager.sourceTopics(),
          topicOperation: 'Read',
        });
        this.log.warn({ err: error, willRestart }, 'consumer crashed');
        if (denied || !willRestart) this.fatal(denied ?? error);
      },
    });
    const period = Math.min(100, this.deps.config.commitIntervalMs);
    this.tick = setInterval(() => {
      void this.mutex.run(() => this.onTick(), 'tick').catch((e) => this.fatal(e));
    }, period);
    this.watchdog?.start();
  }

  /** Commits what was processed, closes the tasks and leaves the group. */
  async stop(): Promise<void> {
    if (this.tick) clearInterval(this.tick);
    this.watchdog?.stop();
    await this.mutex.run(async () => {
      this.closing = true;
      if (!this.failed) await this.commitAll('shutdown');
    });
    await this.consumer.stop().catch((e) => this.log.warn({ err: e }, 'consumer did not stop cleanly'));
    await this.mutex.run(() => this.manager.closeAll({ dirty: this.failed }));
  }

  private fatal(error: unknown): void {
    if (this.failed || this.closing) return;
    this.failed = true;
    this.deps.onFatal(error instanceof Error ? error : new Error(String(error)));
  }

  private async commitAll(reason: string): Promise<void> {
    this.lastCommit = Date.now();
    this.commitSoon = false;
    await this.manager.commitAll(reason);
  }

  private lastDiagnostics = 0;
  /** Between kafkajs' REBALANCING event and the next assignment: no fetches. */
  private rebalancing = false;

  private async onTick(): Promise<void> {
    if (this.closing || this.failed) return;
    const now = Date.now();
    if (now - this.lastDiagnostics > 5000 && this.log.isLevelEnabled('debug')) {
      this.lastDiagnostics = now;
      this.log.debug(
        {
          assigned: [...this.manager.assigned].sort(),
          tasks: [...this.manager.tasks.values()].map((t) => `${t.id}:${t.state}`),
          creating: [...this.manager.creating],
          paused: this.consumer.paused(),
        },
        'thread diagnostics',
      );
    }
    for (const t of this.manager.runningTasks()) {
      // A task that waited for another partition (maxTaskIdleMs) may be ready now; not while the
      // group rebalances: kafkajs fetches nothing then, so the partition waited for cannot bring
      // its data, and processing the others alone would close a join's windows too early.
      if (t.partitionGroup.numBuffered > 0 && !this.rebalancing) {
        if ((await this.processTask(t, now)) === 'failed' || !(await this.flushTask(t))) continue;
      }
      await t.punctuateWallClock(now);
    }
    this.resumeDrained();
    const due = now - this.lastCommit >= this.deps.config.commitIntervalMs;
    if (due || this.commitSoon || this.manager.runningTasks().some((t) => t.commitRequested)) {
      await this.commitAll(due ? 'interval' : 'requested');
    }
  }

  private async processBatch(batch: InputBatch): Promise<void> {
    if (this.closing || this.failed) return;
    const taskId = this.manager.taskIdFor(batch.topic, batch.partition);
    const rt = taskId ? this.manager.tasks.get(taskId) : undefined;
    if (rt?.state !== 'running') {
      // Not ready (being created or restored, or fenced): leave the position where it is; the
      // partition resumes when its task is running.
      this.consumer.pause([{ topic: batch.topic, partition: batch.partition }]);
      // Only task creation resumes a partition: a task that is ours but neither running nor being
      // created (no path should leave one so, but a pause must never be left without an owner)
      // is created now.
      if (taskId && !rt && this.manager.missing(taskId)) this.manager.createLater([taskId], 0);
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
      const outcome = await this.processTask(rt, started, () => batch.heartbeat());
      if (outcome === 'failed') return;
      if (outcome === 'yield' || queue.size >= MAX_BUFFERED_PER_PARTITION) break;
    }
    if (queue.size >= MAX_BUFFERED_PER_PARTITION && rt.state === 'running') {
      const tp = { topic: batch.topic, partition: batch.partition };
      this.pausedFull.set(topicPartitionKey(tp.topic, tp.partition), tp);
      this.consumer.pause([tp]);
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
    if (rt.commitRequested) this.commitSoon = true;
  }

  /**
   * Processes the task's buffered records in timestamp order while it is ready; 'yield' when its
   * turn is up, 'failed' when it was rolled back.
   */
  private async processTask(
    rt: TaskRuntime,
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
  private resumeDrained(): void {
    if (this.pausedFull.size === 0) return;
    const resume: Array<{ topic: string; partition: number }> = [];
    for (const [key, tp] of this.pausedFull) {
      const rt = this.manager.tasks.get(this.manager.taskIdFor(tp.topic, tp.partition) ?? '');
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
    this.consumer.resume(resume);
  }

  private async processRecords(
    rt: TaskRuntime,
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
        await this.manager.onTaskError(rt, error, 'processing', record);
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

  private async flushTask(rt: TaskRuntime): Promise<boolean> {
    try {
      await rt.flush();
      return true;
    } catch (error) {
      await this.manager.onTaskError(rt, error, 'producer');
      return false;
    }
  }
}

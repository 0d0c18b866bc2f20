// The consume-process-produce loop: routes each input batch to the task that owns its partition,
// punctuates, and decides when to commit; the TaskManager owns the tasks themselves.

import { toAuthorizationError } from '../kafka/authorization.ts';
import { explainRefusal } from '../kafka/client.ts';
import { MainConsumer } from '../kafka/consumer.ts';
import { Mutex } from './mutex.ts';
import { type StreamThreadDeps, TaskManager } from './task-manager.ts';
import { TaskProcessing } from './task-processing.ts';
import type { TaskRuntime } from './task-runtime.ts';
import { TaskWatchdog } from './task-watchdog.ts';

export type { StreamThreadDeps } from './task-manager.ts';

/** Output of async operators sent by a wake-up once this many records wait (else at the tick). */
const ASYNC_FLUSH_RECORDS = 500;

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
  /** Batches into tasks, slice by slice (task-processing.ts). */
  private readonly processing: TaskProcessing;

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
      onAsyncProgress: (taskId) => this.wakeTask(taskId),
    });
    this.processing = new TaskProcessing({
      ...deps,
      consumer: this.consumer,
      manager: this.manager,
      isStopped: () => this.closing || this.failed,
      onCommitRequested: () => {
        this.commitSoon = true;
      },
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
      onBatch: (batch) => this.mutex.run(() => this.processing.processBatch(batch), 'processBatch'),
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

  /**
   * Commits what was processed, closes the tasks and stops the membership (`leaveGroup`: as
   * KafkaStreams.close's CloseOptions).
   */
  async stop({ leaveGroup }: { leaveGroup?: boolean } = {}): Promise<void> {
    if (this.tick) clearInterval(this.tick);
    this.watchdog?.stop();
    await this.mutex.run(async () => {
      this.closing = true;
      if (!this.failed) await this.commitAll('shutdown');
    });
    await this.consumer
      .stop({ leaveGroup })
      .catch((e) => this.log.warn({ err: e }, 'consumer did not stop cleanly'));
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
        if ((await this.processing.processTask(t, now)) === 'failed' || !(await this.processing.flushTask(t)))
          continue;
      }
      // Output of async operators that finished since: sent now rather than at the commit.
      else if (t.collector.size > 0 && !(await this.processing.flushTask(t))) continue;
      await t.punctuateWallClock(now);
    }
    this.processing.resumeDrained();
    const due = now - this.lastCommit >= this.deps.config.commitIntervalMs;
    if (due || this.commitSoon || this.manager.runningTasks().some((t) => t.commitRequested)) {
      await this.commitAll(due ? 'interval' : 'requested');
    }
  }
  /** Tasks with a wake-up queued (one section per task, however many records finished). */
  private readonly waking = new Set<string>();

  /**
   * A task's async operators had room again or finished: give it the records it left waiting and
   * send its output now, not at the next batch or tick.
   */
  private wakeTask(taskId: string): void {
    if (this.waking.has(taskId)) return;
    this.waking.add(taskId);
    void this.mutex
      .run(async () => {
        this.waking.delete(taskId);
        const rt = this.manager.tasks.get(taskId);
        if (rt?.state !== 'running' || this.closing || this.failed) return;
        if (rt.partitionGroup.numBuffered > 0 && !this.rebalancing) {
          if ((await this.processing.processTask(rt, Date.now())) === 'failed') return;
        }
        // Not a send per finished record (each awaits the broker, in the thread's section): the
        // output goes when it is a batch, when the task has nothing left in flight, or at the tick.
        if (rt.collector.size >= ASYNC_FLUSH_RECORDS || !rt.task.hasInFlight())
          await this.processing.flushTask(rt);
        this.processing.resumeDrained();
      }, 'async progress')
      .catch((e) => this.fatal(e));
  }
}

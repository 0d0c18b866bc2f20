// The consume-process-produce loop: routes each input batch to the task that owns its partition,
// punctuates, and decides when to commit; the TaskManager owns the tasks themselves.

import { toAuthorizationError } from '../kafka/authorization.ts';
import { explainRefusal } from '../kafka/client.ts';
import { type ConsumerHandlers, MainConsumer } from '../kafka/consumer.ts';
import { GroupConsumer } from '../kafka/membership/group-consumer.ts';
import { PartitionFetcher } from '../kafka/partition-fetcher.ts';
import { Mutex } from './mutex.ts';
import { resetOffsets } from './offset-reset.ts';
import { StandbyMembership } from './standby-membership.ts';
import type { StandbyTask } from './standby-task.ts';
import { type StreamThreadDeps, TaskManager } from './task-manager.ts';
import { TaskProcessing } from './task-processing.ts';
import type { TaskRuntime } from './task-runtime.ts';
import { TaskWatchdog } from './task-watchdog.ts';

export type { StreamThreadDeps } from './task-manager.ts';

/**
 * kafkajs' eager group consumer instead of kstreams' own member: only for the rolling-restart
 * benchmark's comparison (bench/rolling-restart), not a config key.
 */
export const legacyGroup = () => process.env.KSTREAMS_LEGACY_GROUP === '1';

export class StreamThread {
  private readonly mutex = new Mutex((label, heldMs) =>
    this.log.warn({ section: label, heldMs }, 'stream thread busy for long; the consumer is not polling'),
  );
  private readonly consumer: MainConsumer | GroupConsumer;
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
  /** numStandbyReplicas > 0: the high-availability assignment's subscription and probing rebalance. */
  private readonly standbyMembership?: StandbyMembership;

  constructor(private readonly deps: StreamThreadDeps) {
    const { config, topology } = deps;
    this.log = deps.logger;
    const assignor = {
      subtopologies: () => topology.subtopologies(config.applicationId),
      ownedTasks: () => [...this.manager.tasks.keys()],
      applicationServer: config.applicationServer,
    };
    // Standbys (issue 37): KIP-441's assignor and subscription; without them the sticky assignor.
    this.standbyMembership =
      config.numStandbyReplicas > 0 && !legacyGroup()
        ? new StandbyMembership({
            ...deps,
            runningActives: () => this.manager.runningTasks().map((t) => t.id),
            standbys: () => this.manager.standbys.running(),
            rejoin: (reason) => (this.consumer as GroupConsumer).rejoin(reason),
          })
        : undefined;
    this.consumer = legacyGroup()
      ? new MainConsumer(deps.kafka, config, assignor)
      : new GroupConsumer(deps.kafka, config, assignor, {
          newFetcher: (options) => new PartitionFetcher(options),
          ...(this.standbyMembership ? { subscription: this.standbyMembership.parts() } : {}),
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

  /** The standby tasks running on this thread (interactive queries, metadata, status). */
  standbyTasks(): StandbyTask[] {
    return this.manager.standbys.running() as StandbyTask[];
  }

  /** The tasks the group's last assignment gave this thread, running or not (for the metadata). */
  assignedTaskIds(): string[] {
    return [...this.manager.assigned].sort();
  }

  /** Opens the group consumer's connections ahead of start() (GroupConsumer.connect). */
  connect(): Promise<void> {
    return this.consumer instanceof GroupConsumer ? this.consumer.connect() : Promise.resolve();
  }

  async start(): Promise<void> {
    await this.manager.connect();
    const topics = this.manager.sourceTopics();
    await this.standbyMembership?.refresh();
    if (this.consumer instanceof GroupConsumer) {
      // A refusal at the first join (the group's ACLs) puts the app into ERROR with what to grant,
      // as one during the run does; start() itself succeeds, as with Kafka Streams.
      const refused = await this.startMember(this.consumer, topics).then(
        () => undefined,
        (error: Error) => this.denied(error) ?? Promise.reject(error),
      );
      if (refused !== undefined) return this.fatal(refused);
    } else await this.consumer.start(topics, this.legacyHandlers());
    const period = Math.min(100, this.deps.config.commitIntervalMs);
    this.tick = setInterval(() => {
      void this.mutex.run(() => this.onTick(), 'tick').catch((e) => this.fatal(e));
    }, period);
    this.watchdog?.start();
  }

  /** What both consumers tell the thread of fetched data. */
  private fetchHandlers() {
    return {
      onBatch: (batch: Parameters<ConsumerHandlers['onBatch']>[0]) =>
        this.mutex.run(() => this.processing.processBatch(batch), 'processBatch'),
      onControlRecords: (topic: string, partition: number, first: number, last: number) => {
        void this.mutex
          .run(async () => {
            const rt = this.manager.tasks.get(this.manager.taskIdFor(topic, partition) ?? '');
            if (rt?.state === 'running') rt.skipControlRecords(topic, partition, first, last);
          }, 'control records')
          .catch((e) => this.fatal(e));
      },
      onFetched: (topic: string, partition: number, highWatermark: number) =>
        this.deps.recorder.fetched(topic, partition, highWatermark),
      // Outside the mutex: it only notes the partition's end, which no section reads across an await.
      onFetchedEnd: (topic: string, partition: number, endOffset: number, emptyAt: number | undefined) => {
        const rt = this.manager.tasks.get(this.manager.taskIdFor(topic, partition) ?? '');
        rt?.partitionGroup.updateEndOffset(topic, partition, endOffset, emptyAt);
      },
    };
  }

  /**
   * kstreams' own member (cooperative, static): the task manager hears of each change as one
   * section of the thread; the tasks that stay keep processing through the rebalance.
   */
  private async startMember(consumer: GroupConsumer, topics: string[]): Promise<void> {
    const section = (label: string, fn: () => Promise<void>) => this.mutex.run(fn, label);
    await consumer.start(topics, {
      ...this.fetchHandlers(),
      listener: {
        onPartitionsRevoked: (partitions) =>
          section('onPartitionsRevoked', () => this.manager.onPartitionsRevoked(partitions)),
        onPartitionsAssigned: (added, assignment) =>
          section('onPartitionsAssigned', async () => {
            this.standbyMembership?.onAssignment(assignment.userData);
            await this.manager.onPartitionsAssigned(added, consumer.groupMetadata(), assignment.userData);
            // The closes wrote checkpoints: the next subscription reports them.
            await this.standbyMembership?.refresh();
            // What a wait knew of the other partitions is as old as the rebalance: wait afresh.
            for (const t of this.manager.runningTasks()) t.partitionGroup.restartWaits();
          }),
        onPartitionsLost: (partitions, cause) => {
          // Why (the session expired, or the thread stalled past the poll timeout) and what to change.
          this.log.warn(
            { err: cause, partitions },
            'removed from the group: its tasks close without committing',
          );
          return section('onPartitionsLost', () => this.manager.onPartitionsLost(partitions));
        },
        onFatal: (error) => this.fatal(error),
      },
      onOffsetOutOfRange: async (tp) => {
        const [reset] = await resetOffsets([tp], this.manager.offsetResetPolicy, this.deps.admin, Date.now());
        if (reset === undefined) throw new Error(`no offset found to reset ${tp.topic}-${tp.partition} to`);
        return reset.offset;
      },
      onFetchError: (error) => {
        this.log.warn({ err: error }, 'fetching stopped');
        this.fatal(this.denied(error) ?? error);
      },
      onShutdownRequested: () => this.deps.onShutdownRequested?.(),
    });
  }

  /**
   * SHUTDOWN_APPLICATION from this instance's handler: its tasks close without committing (the
   * thread failed), then the member asks the group to stop every instance. False on kafkajs' eager
   * consumer (KSTREAMS_LEGACY_GROUP), which cannot carry the request.
   */
  async requestApplicationShutdown(timeoutMs: number): Promise<boolean> {
    if (!(this.consumer instanceof GroupConsumer)) return false;
    await this.mutex.run(async () => {
      this.closing = true;
      for (const rt of this.manager.tasks.values()) await rt.close({ dirty: true });
      this.manager.tasks.clear();
    }, 'SHUTDOWN_APPLICATION');
    await this.consumer.requestShutdown(timeoutMs);
    return true;
  }

  /** The group's or the input topics' ACLs refused: a retry would be refused the same way. */
  private denied(error: Error): Error | undefined {
    return toAuthorizationError(explainRefusal(this.deps.kafka, error), this.deps.config, {
      topics: this.manager.sourceTopics(),
      topicOperation: 'Read',
    });
  }

  /** kafkajs' eager group consumer (KSTREAMS_LEGACY_GROUP=1). */
  private legacyHandlers(): ConsumerHandlers {
    return {
      ...this.fetchHandlers(),
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
      onCrash: (error, willRestart) => {
        const denied = this.denied(error);
        this.log.warn({ err: error, willRestart }, 'consumer crashed');
        if (denied || !willRestart) this.fatal(denied ?? error);
      },
    };
  }

  /**
   * Commits what was processed, closes the tasks and stops the membership (`leaveGroup`: as
   * KafkaStreams.close's CloseOptions).
   */
  async stop({ leaveGroup }: { leaveGroup?: boolean } = {}): Promise<void> {
    if (this.tick) clearInterval(this.tick);
    this.standbyMembership?.close();
    this.watchdog?.stop();
    await this.mutex.run(async () => {
      this.closing = true;
      if (!this.failed) await this.commitAll('shutdown');
    });
    await this.consumer
      .stop({ leaveGroup })
      .catch((e) => this.log.warn({ err: e }, 'consumer did not stop cleanly'));
    await this.mutex.run(() => this.manager.closeAll({ dirty: this.failed }));
    await this.manager.closeReader();
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
    await this.manager.standbys.checkpoint();
  }

  private lastDiagnostics = 0;
  /** Between kafkajs' REBALANCING event and the next assignment: no fetches. */
  private rebalancing = false;

  private async onTick(): Promise<void> {
    if (this.closing || this.failed) return;
    // The loop is alive (Java's poll()): a thread stuck in one section past the rebalance timeout
    // gives its partitions up (kstreams' own member; kafkajs' heartbeats inside batches instead).
    if (this.consumer instanceof GroupConsumer) this.consumer.poll();
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
        if ((await this.processing.processTask(t, now)) === 'failed') continue;
      }
      // Output of async operators (and records just processed): in batches while calls are in flight.
      if (!(await this.processing.flushDue(t, now))) continue;
      await t.punctuateWallClock(now);
    }
    this.processing.resumeDrained();
    // Standbys whose folder an active held at the assignment (it was closing or restoring).
    await this.manager.standbys.openMissing();
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
        // output goes when it is a batch, when the task has nothing left in flight, or after 1 s.
        await this.processing.flushDue(rt, Date.now());
        this.processing.resumeDrained();
      }, 'async progress')
      .catch((e) => this.fatal(e));
  }
}

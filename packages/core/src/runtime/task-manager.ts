// Kafka Streams' TaskManager: follows the group's assignment by creating (fence, restore, seek,
// resume), recreating and closing tasks, commits the due tasks and rolls a failed task back, the
// how of both left to the processing guarantee's object (processing-guarantee.ts).
import { UncommittedBytesBudget } from '@kstreams/state-store';
import type { Logger } from 'pino';
import { decodeAssignmentInfo } from '../kafka/assignment-info.ts';
import { toAuthorizationError } from '../kafka/authorization.ts';
import { ChangelogReader } from '../kafka/changelog-reader.ts';
import { isFencedError, isGroupGenerationError, isRefusedRecordsError } from '../kafka/error-kinds.ts';
import { kafkajsCapabilities } from '../kafka/kafkajs-patches.ts';
import type { AutoOffsetReset } from '../processor/auto-offset-reset.ts';
import { ThreadCache } from '../state/internals/thread-cache.ts';
import { isFatalTaskError } from './fatal-errors.ts';
import { processingGuaranteeFor } from './guarantee-factory.ts';
import type { Mutex } from './mutex.ts';
import { offsetResetPolicies } from './offset-reset.ts';
import { closeDirty, type GuaranteeDeps, type ProcessingGuarantee } from './processing-guarantee.ts';
import { runtimeTaskFactory } from './restore.ts';
import { runtimeStandbys } from './standby-feed.ts';
import { type ChangelogFeed, type StandbyLike, StandbyTasks } from './standby-tasks.ts';
import type { ActiveTask } from './task.ts';
import { TaskCreation, type TaskFactory, type TaskManagerConsumer } from './task-creation.ts';

export type { TaskFactory, TaskManagerConsumer } from './task-creation.ts';
export type { GroupMetadata, GroupPartitions, StreamThreadDeps } from './thread-deps.ts';

import type { TaskRuntime, TaskRuntimeDeps } from './task-runtime.ts';
import type { GroupMetadata, GroupPartitions, StreamThreadDeps } from './thread-deps.ts';

export interface TaskManagerDeps<T extends ActiveTask = TaskRuntime> extends StreamThreadDeps {
  consumer: TaskManagerConsumer;
  /** Default: TaskRuntime, restored by restore.ts. */
  taskFactory?: TaskFactory<T>;
  /** Default: the config's, with real producers (guarantee-factory.ts). */
  guarantee?: (deps: GuaranteeDeps) => ProcessingGuarantee;
  /** The stream thread's: every change to the tasks runs as one of its sections. */
  mutex: Mutex;
  isClosing(): boolean;
  fatal(error: unknown): void;
  /** A task's async operators made room or finished (StreamTaskOptions.onAsyncProgress). */
  onAsyncProgress?: (taskId: string) => void;
  /** Default: standby-task.ts' StandbyTask fed by standby-feed.ts (tests pass fakes). */
  standby?: { create(id: string): StandbyLike; feed: ChangelogFeed<StandbyLike> };
}

/**
 * Consecutive failures of one task's processing before the error goes to the uncaught exception
 * handler: a processor that throws at the same record again and again will not recover.
 */
const MAX_TASK_RETRIES = 5;

/**
 * How long a task keeps retrying while the broker is unreachable or loses its answers (Kafka
 * Streams' task.timeout.ms): task creation, and sends and commits that fail on the way. Those
 * failures say nothing about the task, so they are bounded by time, not by count.
 */
const TASK_TIMEOUT_MS = 300_000;

export class TaskManager<T extends ActiveTask = TaskRuntime> {
  readonly tasks = new Map<string, T>();
  /** Creates, restores and starts the assigned tasks in the background (task-creation.ts). */
  private readonly creation: TaskCreation<T>;
  /** The tasks being created or restored. */
  get creating(): ReadonlySet<string> {
    return this.creation.creating;
  }
  /** Since when each task's sends or commits have been failing on the way, until it commits. */
  private readonly failingSince = new Map<string, number>();
  /** at_least_once, exactly_once or exactly_once_v2: producers, commits, rollbacks. */
  readonly guarantee: ProcessingGuarantee;
  private readonly topicToSubtopology = new Map<string, number>();
  assigned = new Set<string>();
  private memberId?: string;
  /** Bumped when tasks being created may have gone stale (see TaskCreation). */
  generation = 0;
  private readonly log: Logger;
  private readonly uncommittedBytes: UncommittedBytesBudget;
  private readonly threadCache: ThreadCache;

  /** Where a source topic's partition starts without a commit, or after leaving its log. */
  readonly offsetResetPolicy: (topic: string) => AutoOffsetReset;
  private readonly taskFactory: TaskFactory<T>;
  /** Standby tasks (issue 37): those the assignment info lists, opened while their folder is free. */
  readonly standbys: StandbyTasks;
  /** The thread's long-lived changelog reader: restores of new actives and standbys (issue 36). */
  private readonly reader: ChangelogReader;

  constructor(private readonly deps: TaskManagerDeps<T>) {
    const { config, topology } = deps;
    this.log = deps.logger;
    this.uncommittedBytes = new UncommittedBytesBudget(config.maxUncommittedBytes);
    this.threadCache = new ThreadCache(config.statestoreCacheMaxBytes);
    this.reader = new ChangelogReader({
      kafka: deps.kafka,
      readCommitted: config.exactlyOnce,
      onFetchedEnd: (topic, partition, end) => deps.recorder.fetched(topic, partition, end),
    });
    this.taskFactory =
      deps.taskFactory ?? (runtimeTaskFactory({ ...deps, reader: this.reader }) as unknown as TaskFactory<T>);
    this.offsetResetPolicy = offsetResetPolicies(topology, config.applicationId, config.autoOffsetReset);
    for (const sub of topology.subtopologies(config.applicationId)) {
      for (const t of sub.sourceTopics) this.topicToSubtopology.set(t, sub.id);
    }
    this.creation = new TaskCreation<T>(this, {
      ...deps,
      taskFactory: this.taskFactory,
      taskDeps: () => this.taskDeps(),
      timeoutMs: TASK_TIMEOUT_MS,
    });
    const guaranteeDeps: GuaranteeDeps = {
      ...deps,
      failingSince: this.failingSince,
      onCommitError: (rt, error) => this.onTaskError(rt as T, error, 'producer'),
      recreate: (rt, delayMs) => this.recreate(rt as T, delayMs),
    };
    this.guarantee = deps.guarantee
      ? deps.guarantee(guaranteeDeps)
      : processingGuaranteeFor(config, deps.kafka, guaranteeDeps);
    this.standbys = new StandbyTasks({
      ...(deps.standby ??
        runtimeStandbys({
          ...deps,
          reader: this.reader,
          reopen: (id) => this.standbys.reopen(id),
          onApplied: (id, records) => deps.recorder.standbyUpdated(id, records),
          onUnfollowed: (id) => deps.recorder.standbyClosed(id),
        })),
      activeHolds: (id) => this.tasks.has(id) || this.creating.has(id) || this.assigned.has(id),
      mayFeed: () => this.creation.standbysMayRun(),
      logger: this.log,
    });
  }

  /** The task that owns an input partition, whether or not it runs here. */
  taskIdFor(topic: string, partition: number): string | undefined {
    const sub = this.topicToSubtopology.get(topic);
    return sub === undefined ? undefined : `${sub}_${partition}`;
  }

  sourceTopics(): string[] {
    return [...this.topicToSubtopology.keys()];
  }

  /** The tasks this thread runs now, with their stores (for interactive queries). */
  runningTasks(): T[] {
    return [...this.tasks.values()].filter((t) => t.state === 'running');
  }

  async connect(): Promise<void> {
    await this.guarantee.connect();
  }

  /** Closes every task (dirty: without committing), the standbys and the guarantee's producers. */
  async closeAll({ dirty }: { dirty: boolean }): Promise<void> {
    for (const t of this.tasks.values()) await t.close({ dirty });
    this.tasks.clear();
    await this.standbys.closeAll({ dirty });
    await this.guarantee.close();
  }

  /** After closeAll, outside the thread's sections: a standby's batch may be waiting for one. */
  async closeReader(): Promise<void> {
    await this.reader.close();
  }

  /**
   * A processor threw or a send failed: roll the task back to its last commit and go on.
   * @param where `processing`: a processor (or a serde) threw; `producer`: a send or a commit
   * failed.
   */
  async onTaskError(
    rt: T,
    error: unknown,
    where: 'processing' | 'producer',
    record?: { topic: string; partition: number; offset: number },
  ) {
    const denied = toAuthorizationError(error, this.deps.config, {
      transactionalId: this.guarantee.transactionalIdFor(rt.id),
      topicOperation: where === 'producer' ? 'Write' : 'Read',
    });
    if (denied) {
      // The ACLs must change; as in Kafka Streams, no retry. Stopping the thread closes the task
      // without committing.
      this.deps.fatal(denied);
      return;
    }
    const fenced = isFencedError(error);
    this.log.warn(
      { err: error, taskId: rt.id, ...record, fenced, where },
      'task failed; rolling back to its last commit',
    );
    // A send or commit that failed for any reason but the records themselves leaves the producer
    // in a state it cannot know: a commit may have gone through with its response lost; the
    // broker may hold records whose acks never came, so kafkajs' sequence numbers no longer match
    // the broker's (OUT_OF_ORDER_SEQUENCE_NUMBER on every later send, seen after a broker
    // restart); a commit that failed half-way leaves kafkajs' transaction state machine stuck
    // ("Cannot call beginTransaction in state COMMITTING", seen when the group coordinator moved
    // during a broker restart). Only a new producer gets out of it; how, the guarantee knows.
    // Records the broker refuses (too large) are rolled back in place and counted.
    const producerBroken = where === 'producer' && !isRefusedRecordsError(error);
    await this.guarantee.rollBack(
      rt,
      { fenced, producerBroken, groupMoved: isGroupGenerationError(error) },
      this.runningTasks(),
    );
    // The same record would fail again, the production handler said fail, or the disk is full:
    // as in Kafka Streams, no retry (fatal-errors.ts).
    if (isFatalTaskError(error)) {
      this.deps.fatal(error);
      return;
    }
    if (fenced && this.guarantee.fencingRecreatesTask) return;
    if (producerBroken) {
      const since = this.failingSince.get(rt.id) ?? Date.now();
      this.failingSince.set(rt.id, since);
      if (Date.now() - since > TASK_TIMEOUT_MS) {
        this.deps.fatal(
          new Error(
            `task ${rt.id} could not commit for ${TASK_TIMEOUT_MS} ms; last error: ${String(error)}`,
            { cause: error },
          ),
        );
      }
    } else if (++rt.consecutiveFailures > MAX_TASK_RETRIES) {
      this.deps.fatal(
        new Error(
          `task ${rt.id} failed ${rt.consecutiveFailures} times in a row; last error: ${String(error)}`,
          { cause: error },
        ),
      );
    }
  }

  /** Closes the task without committing and creates it again from what Kafka holds, if still ours. */
  async recreate(rt: T, delayMs: number): Promise<void> {
    await this.guarantee.beforeRecreate(rt, this.runningTasks());
    await rt.close({ dirty: true });
    this.tasks.delete(rt.id);
    this.deps.consumer.pause(rt.inputPartitions);
    this.reportRunning();
    this.createLater([rt.id], delayMs);
  }

  /**
   * Commits once the tasks' async operators have settled (the hook of every commit): offsets are
   * read only when every record taken has its output buffered, so the transaction (or the
   * acknowledged sends) holds exactly the output of the records whose offsets it commits. A task
   * whose async work failed is rolled back instead; under exactly_once_v2 that rolled back every
   * task of the thread, so nothing is committed.
   */
  private async commitSettled(tasks: T[]): Promise<void> {
    const ready: T[] = [];
    for (const rt of tasks) {
      try {
        await rt.awaitInFlight();
        ready.push(rt);
      } catch (error) {
        // What an async operator's handler answered 'fail' to: a processing failure.
        await this.onTaskError(rt, error, 'processing');
      }
    }
    if (ready.length === 0 || (this.guarantee.name === 'exactly_once_v2' && ready.length < tasks.length))
      return;
    await this.guarantee.commit(ready);
  }

  async commitAll(reason: string): Promise<void> {
    const due = this.runningTasks().filter((t) => t.commitNeeded || t.commitRequested);
    if (due.length === 0) return;
    const started = Date.now();
    await this.commitSettled(due);
    const ms = Date.now() - started;
    const committed = due.filter((t) => !t.commitNeeded).map((t) => t.id);
    this.deps.recorder.committed(committed, ms);
    this.creation.activesFirst.committed(committed);
    this.log.debug({ reason, tasks: due.map((t) => t.id), ms }, 'committed');
  }

  async onAssignment(
    memberId: string,
    assignment: Record<string, number[]>,
    groupGeneration?: number,
  ): Promise<void> {
    if (this.deps.isClosing()) return;
    this.generation++;
    this.guarantee.joined(memberId, groupGeneration);
    const assigned = new Set<string>();
    for (const [topic, partitions] of Object.entries(assignment)) {
      for (const p of partitions) {
        const id = this.taskIdFor(topic, p);
        if (id) assigned.add(id);
      }
    }
    const lostAll = this.memberId !== undefined && this.memberId !== memberId;
    this.memberId = memberId;
    this.assigned = assigned;
    this.log.info({ memberId, tasks: [...assigned].sort(), lostAll }, 'assignment received');
    const revoking = [...this.tasks.values()].some((t) => !assigned.has(t.id) && t.state === 'running');
    // exactly_once_v2 drops the work of all tasks here (exactly-once-v2.ts' revoking).
    const commitRevoked = lostAll || revoking ? await this.guarantee.revoking(this.runningTasks()) : true;
    if (lostAll) {
      // We were dropped from the group (e.g. paused past the session timeout): others may have
      // run our tasks since, so their local uncommitted state is stale.
      for (const rt of this.tasks.values()) await closeDirty(rt, this.deps);
      this.tasks.clear();
    }
    const revoked = [...this.tasks.values()].filter((t) => !assigned.has(t.id));
    if (revoked.length > 0) {
      const committable = revoked.filter((t) => t.state === 'running');
      if (commitRevoked && committable.length > 0) await this.commitSettled(committable);
      for (const rt of revoked) {
        await rt.close({ dirty: false });
        this.tasks.delete(rt.id);
      }
    }
    const fresh = [...assigned].filter((id) => !this.tasks.has(id) && !this.creating.has(id));
    this.createTasks(fresh);
    this.reportRunning();
  }

  /** The task ids of these partitions (co-partitioned inputs give one task several). */
  private taskIdsOf(partitions: GroupPartitions[]): Set<string> {
    const ids = new Set<string>();
    for (const { topic, partitions: ps } of partitions)
      for (const p of ps) {
        const id = this.taskIdFor(topic, p);
        if (id) ids.add(id);
      }
    return ids;
  }

  /**
   * Cooperative rebalancing (KIP-429): these partitions go to another member. Only their tasks
   * commit and close clean; the others keep running. Under exactly_once_v2 the thread's one
   * transaction holds every task's work, so all commit (Kafka Streams does the same).
   */
  async onPartitionsRevoked(partitions: GroupPartitions[]): Promise<void> {
    const ids = this.taskIdsOf(partitions);
    for (const id of ids) this.assigned.delete(id);
    // A task still restoring is closed when its creation ends (it is no longer assigned); a
    // reassignment meanwhile must not take that stale creation.
    if ([...ids].some((id) => this.creating.has(id))) this.generation++;
    const revoked = [...this.tasks.values()].filter((t) => ids.has(t.id));
    if (revoked.length === 0) return this.reportRunning();
    this.log.info({ tasks: revoked.map((t) => t.id).sort() }, 'tasks revoked');
    if (!this.deps.isClosing()) {
      const running = this.runningTasks();
      const chosen = new Set(
        this.guarantee.onRevocation(
          revoked.filter((t) => t.state === 'running'),
          running,
        ),
      );
      const commit = running.filter((t) => chosen.has(t) && (t.commitNeeded || t.commitRequested));
      if (commit.length > 0) await this.commitSettled(commit);
    }
    for (const rt of revoked) {
      await rt.close({ dirty: false });
      this.tasks.delete(rt.id);
      this.failingSince.delete(rt.id);
    }
    this.reportRunning();
  }

  /**
   * The member took a new generation and these partitions are new to it: their tasks are created
   * and restored in the background (a standby of one closes first: its checkpoint is where the
   * restore starts); the tasks it kept are not touched. `userData`: the assignment info, whose
   * standby list the standbys follow.
   */
  async onPartitionsAssigned(
    added: GroupPartitions[],
    group: GroupMetadata,
    userData: Buffer | null = null,
  ): Promise<void> {
    if (this.deps.isClosing()) return;
    this.guarantee.joined(group.memberId, group.generationId, group.groupInstanceId);
    this.memberId = group.memberId;
    for (const id of this.taskIdsOf(added)) this.assigned.add(id);
    this.log.info(
      { memberId: group.memberId, generationId: group.generationId, tasks: [...this.assigned].sort() },
      'assignment received',
    );
    const fresh = [...this.assigned].filter((id) => !this.tasks.has(id) && !this.creating.has(id));
    await this.standbys.promote(fresh);
    this.createTasks(fresh);
    await this.standbys.assign(decodeAssignmentInfo(userData).standbyTasks);
    this.reportRunning();
  }

  /**
   * The member was removed from the group: these partitions may be another member's already, so
   * their tasks close without committing (exactly_once_v2: the thread's transaction aborts, and
   * the kept tasks go back to their last commit).
   */
  async onPartitionsLost(partitions: GroupPartitions[]): Promise<void> {
    const ids = this.taskIdsOf(partitions);
    for (const id of ids) this.assigned.delete(id);
    this.generation++;
    const lost = [...this.tasks.values()].filter((t) => ids.has(t.id));
    this.log.warn({ tasks: lost.map((t) => t.id).sort() }, 'tasks lost');
    if (lost.some((t) => t.state === 'running')) await this.guarantee.revoking(this.runningTasks());
    for (const rt of lost) {
      await closeDirty(rt, this.deps);
      this.tasks.delete(rt.id);
      this.failingSince.delete(rt.id);
    }
    this.reportRunning();
  }

  /** Tells whether every assigned task runs. */
  reportRunning(): void {
    const running = [...this.assigned].every((id) => this.tasks.get(id)?.state === 'running');
    this.deps.onRunningChange(running);
  }

  /** Assigned to us by the last assignment, but neither running, being created nor scheduled to be. */
  missing(id: string): boolean {
    return this.creation.missing(id);
  }

  /** After `delayMs`, creates those of `ids` that are still missing. */
  createLater(ids: string[], delayMs: number): void {
    this.creation.createLater(ids, delayMs);
  }

  private createTasks(ids: string[]): void {
    this.creation.createTasks(ids);
  }

  private taskDeps(): TaskRuntimeDeps {
    const { config, admin, topology, metrics, recorder } = this.deps;
    return {
      config,
      topology,
      admin,
      metrics,
      recorder,
      logger: this.log,
      uncommittedBytes: this.uncommittedBytes,
      threadCache: this.threadCache,
      globalStore: this.deps.globalStore,
      offsetResetPolicy: this.offsetResetPolicy,
      onAsyncProgress: this.deps.onAsyncProgress,
      // Encoded at the sink only where core's produce request will write the batches.
      partitionCountOf: kafkajsCapabilities().encodedProduce
        ? (topic) => admin.partitionCountOf(topic)
        : undefined,
      producerFor: (taskId) => this.guarantee.producerFor(taskId),
    };
  }
}

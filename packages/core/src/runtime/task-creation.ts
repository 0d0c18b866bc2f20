// Task creation in the background, as Kafka Streams' TaskManager does it: a new task is made,
// its input paused, its stores opened and restored from the changelogs while the thread goes on
// with the others; then, in one of the thread's sections, it seeks to its start and runs, unless
// the assignment took it away meanwhile. Failures on the way (a broker away) are retried with a
// backoff for the task timeout.
import type { Logger } from 'pino';
import type { ResolvedConfig } from '../config/streams-config.ts';
import { toAuthorizationError } from '../kafka/authorization.ts';
import type { MainConsumer } from '../kafka/consumer.ts';
import { isRetriableError } from '../kafka/error-kinds.ts';
import type { Mutex } from './mutex.ts';
import { ActivesFirst, firstCommitWaitMs } from './standby-priority.ts';
import type { ActiveTask } from './task.ts';
import type { TaskRuntimeDeps } from './task-runtime.ts';

/** How the task manager makes its tasks: the active task of task-runtime.ts, or a test's fake. */
export interface TaskFactory<T extends ActiveTask> {
  create(id: string, deps: TaskRuntimeDeps): T;
  /** Brings the new tasks' stores up to date from their changelogs. */
  restore(tasks: T[]): Promise<void>;
  /** The task has no changelog to restore, so it can run before the others of its batch are restored. */
  isStateless?(task: T): boolean;
}

/** The consumer as the task manager uses it (kafka/consumer.ts' MainConsumer, or the group consumer). */
export type TaskManagerConsumer = Pick<MainConsumer, 'pause' | 'resume' | 'seek' | 'commitOffsets'>;

/** Pauses between tries of task creation. */
const TASK_CREATION_BACKOFF_MS = [500, 1_000, 2_000, 5_000];

/** What creation reads of the task manager. */
export interface TaskCreationOwner<T extends ActiveTask> {
  readonly tasks: Map<string, T>;
  /** The tasks of the last assignment. */
  readonly assigned: ReadonlySet<string>;
  /** A task whose creation began in another generation is not started. */
  readonly generation: number;
  reportRunning(): void;
}

export interface TaskCreationDeps<T extends ActiveTask> {
  config: ResolvedConfig;
  logger: Logger;
  consumer: Pick<TaskManagerConsumer, 'pause' | 'resume' | 'seek'>;
  mutex: Mutex;
  isClosing(): boolean;
  fatal(error: unknown): void;
  taskFactory: TaskFactory<T>;
  taskDeps(): TaskRuntimeDeps;
  /** How long creation is retried while the broker is away (Kafka Streams' task.timeout.ms). */
  timeoutMs: number;
}

export class TaskCreation<T extends ActiveTask> {
  /** Tasks being created or restored. */
  readonly creating = new Set<string>();
  /** Tasks whose creation is scheduled (after a backoff, or a pause after being fenced). */
  private readonly later = new Set<string>();
  /** Standbys wait while tasks are created and until they first commit (standby-priority.ts). */
  readonly activesFirst: ActivesFirst;

  constructor(
    private readonly owner: TaskCreationOwner<T>,
    private readonly deps: TaskCreationDeps<T>,
  ) {
    this.activesFirst = new ActivesFirst(firstCommitWaitMs(deps.config.commitIntervalMs));
  }

  /** Whether the thread's standbys may be fed now (no active of it starting). */
  standbysMayRun(): boolean {
    return this.activesFirst.standbysMayRun(this.creating);
  }

  /** Creates, restores and starts tasks in the background while the consumer keeps heartbeating. */
  createTasks(ids: string[], attempt = 0, firstFailure?: number): void {
    if (ids.length === 0) return;
    const generation = this.owner.generation;
    for (const id of ids) this.creating.add(id);
    const runtimes = ids.map((id) => this.deps.taskFactory.create(id, this.deps.taskDeps()));
    for (const rt of runtimes) this.deps.consumer.pause(rt.inputPartitions);
    void (async () => {
      try {
        // Wait for every task's initialization, not only the first to fail: closing a task whose
        // stores are still opening leaves its database open and locked, and the retry then fails
        // with StoreLockedError (seen in CI when a new topic had no leader yet).
        const initialized = await Promise.allSettled(runtimes.map((rt) => rt.initialize()));
        const failure = initialized.find((r) => r.status === 'rejected');
        if (failure) throw failure.reason;
        // Tasks without state run at once, as Kafka Streams' state updater hands each task over
        // when its own changelogs are done: a long restore must not hold back the stateless ones.
        const stateless = runtimes.filter((rt) => this.deps.taskFactory.isStateless?.(rt) === true);
        const stateful = runtimes.filter((rt) => !stateless.includes(rt));
        if (stateless.length > 0) await this.start(stateless, generation);
        await this.deps.taskFactory.restore(stateful);
        await this.start(stateful, generation);
      } catch (error) {
        for (const rt of runtimes) {
          if (!this.creating.has(rt.id)) continue; // started already, or closed on its way
          this.creating.delete(rt.id);
          await rt.close({ dirty: true });
        }
        if (this.deps.isClosing()) return;
        const since = firstFailure ?? Date.now();
        const denied = toAuthorizationError(error, this.deps.config, { topicOperation: 'Read' });
        if (denied || !isRetriableError(error) || Date.now() - since > this.deps.timeoutMs) {
          this.deps.fatal(denied ?? error);
          return;
        }
        // The broker is away or restarting: try again while the tasks are still ours.
        const delay = TASK_CREATION_BACKOFF_MS[Math.min(attempt, TASK_CREATION_BACKOFF_MS.length - 1)]!;
        this.deps.logger.warn(
          { err: error, tasks: ids, retryInMs: delay },
          'creating tasks failed; retrying',
        );
        this.createLater(ids, delay, attempt + 1, since);
      }
    })();
  }

  /** Runs the restored tasks that are still ours; closes the others. */
  private async start(runtimes: T[], generation: number): Promise<void> {
    for (const rt of runtimes) await rt.initializeTopology();
    const queuedAt = Date.now();
    await this.deps.mutex.run(async () => {
      const waitedMs = Date.now() - queuedAt;
      for (const rt of runtimes) {
        this.creating.delete(rt.id);
        if (
          this.deps.isClosing() ||
          !this.owner.assigned.has(rt.id) ||
          this.owner.generation !== generation
        ) {
          // Revoked while restoring; a newer assignment creates it again if it is ours.
          await rt.close({ dirty: true });
          if (!this.deps.isClosing() && this.missing(rt.id)) this.createTasks([rt.id]);
          continue;
        }
        for (const tp of rt.startPositions()) this.deps.consumer.seek(tp);
        rt.state = 'running';
        this.owner.tasks.set(rt.id, rt);
        this.activesFirst.started(rt.id);
        this.deps.consumer.resume(rt.inputPartitions);
        this.deps.logger.info({ taskId: rt.id, waitedMs }, 'task running');
      }
      this.owner.reportRunning();
    });
  }

  /** Assigned to us by the last assignment, but neither running, being created nor scheduled to be. */
  missing(id: string): boolean {
    return (
      this.owner.assigned.has(id) &&
      !this.owner.tasks.has(id) &&
      !this.creating.has(id) &&
      !this.later.has(id)
    );
  }

  /** After `delayMs`, creates those of `ids` that are still missing. */
  createLater(ids: string[], delayMs: number, attempt = 0, firstFailure?: number): void {
    for (const id of ids) this.later.add(id);
    setTimeout(
      () =>
        void this.deps.mutex.run(() => {
          for (const id of ids) this.later.delete(id);
          if (!this.deps.isClosing())
            this.createTasks(
              ids.filter((id) => this.missing(id)),
              attempt,
              firstFailure,
            );
        }, 'recreate tasks'),
      delayMs,
    ).unref();
  }
}

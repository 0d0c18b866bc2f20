// One object per processing guarantee (Kafka Streams' processing.guarantee): which producer a task
// sends through, how the due tasks commit, and how a failed task is rolled back. The task manager
// holds one and never asks which guarantee it runs.
import type { Logger } from 'pino';
import type { ResolvedConfig } from '../config/streams-config.ts';
import type { MainConsumer } from '../kafka/consumer.ts';
import type { TaskProducer } from '../kafka/producers.ts';
import type { StreamsMetricsRecorder } from '../metrics/streams-metrics-recorder.ts';
import type { StreamsMetrics } from './metrics.ts';
import type { ActiveTask } from './task.ts';

export type ProcessingGuaranteeName = 'at_least_once' | 'exactly_once' | 'exactly_once_v2';

/** How a send, a commit or a processor failed (task-manager.ts' onTaskError decides it). */
export interface TaskFailure {
  /** Another instance owns the task now (its producer is fenced). */
  fenced: boolean;
  /** The producer's state is unknown after the failure: only a new producer gets out of it. */
  producerBroken: boolean;
  /** The group moved on to a new generation (the producer itself is fine). */
  groupMoved: boolean;
}

/** What a guarantee needs of the task manager. */
export interface GuaranteeDeps {
  config: Pick<ResolvedConfig, 'applicationId'>;
  consumer: Pick<MainConsumer, 'commitOffsets' | 'seek'>;
  metrics: StreamsMetrics;
  recorder: StreamsMetricsRecorder;
  logger: Logger;
  /** Since when each task's sends or commits have been failing; a commit clears its entry. */
  failingSince: Map<string, number>;
  /** A commit failed: the task manager rolls the task back (through `rollBack`) and counts it. */
  onCommitError(task: ActiveTask, error: unknown): Promise<void>;
  /** Closes the task without committing and creates it again from what Kafka holds, if still ours. */
  recreate(task: ActiveTask, delayMs: number): Promise<void>;
}

export interface ProcessingGuarantee {
  readonly name: ProcessingGuaranteeName;
  /** Connects the producers made before any task (the shared one, the thread's one). */
  connect(): Promise<void>;
  /** Closes them; what is left open was never committed. */
  close(): Promise<void>;
  /** The producer a new task sends through. */
  producerFor(taskId: string): TaskProducer;
  /** The transactional id a task's sends and commits use (for the authorization error's advice). */
  transactionalIdFor(taskId: string): string | undefined;
  /** The thread took the assignment of this group generation (`groupInstanceId`: KIP-345's). */
  joined(memberId: string, generationId: number | undefined, groupInstanceId?: string | null): void;
  /** Commits the due tasks; a task whose commit fails goes to `onCommitError`. */
  commit(due: ActiveTask[]): Promise<void>;
  /** Rolls back after `task` failed (`running`: all the thread's running tasks). */
  rollBack(task: ActiveTask, failure: TaskFailure, running: ActiveTask[]): Promise<void>;
  /** Whether a fenced task's failure ends there (it was recreated) rather than counting as a retry. */
  readonly fencingRecreatesTask: boolean;
  /**
   * The assignment takes running tasks away (or the member lost them all): before they close, the
   * work they share with the kept tasks goes. Returns whether the revoked tasks still need a commit.
   */
  revoking(running: ActiveTask[]): Promise<boolean>;
  /**
   * Cooperative rebalancing: `revoked` tasks go to another member, the other running tasks stay.
   * Returns the tasks to commit before the revoked close (the revoked, or all that share a
   * transaction with them).
   */
  onRevocation(revoked: ActiveTask[], running: ActiveTask[]): ActiveTask[];
  /** Before a running task is closed dirty and created again. */
  beforeRecreate(task: ActiveTask, running: ActiveTask[]): Promise<void>;
}

/**
 * Rolls one task back to its last commit (at_least_once and exactly_once: the task's work is its
 * own): the consumer goes back to its commit, or the task is created again when its producer is
 * dead (fenced, or the abort failed) or must be replaced (`rebuild`).
 */
export async function rollBackTask(
  deps: GuaranteeDeps,
  task: ActiveTask,
  { fenced, rebuild, transactional }: { fenced: boolean; rebuild: boolean; transactional: boolean },
): Promise<void> {
  deps.metrics.rollbacks++;
  deps.recorder.rolledBack(task.id);
  if (transactional) deps.recorder.transactionAborted();
  const ok = await task.rollback();
  if (fenced || !ok || rebuild) {
    // The task's producer is dead (fenced: another instance owns the task now) or in an
    // unknown state. Close it without committing and let a new task start from what Kafka
    // holds; the group's next assignment decides whether it comes back.
    if (fenced) deps.metrics.fencedTasks++;
    // If it is still ours by the last assignment we saw: when another instance fenced us from
    // a stale view of the group, it learns so at its next heartbeat; try again after a pause
    // rather than wait for a rebalance that may never come.
    await deps.recreate(task, fenced ? 2_000 : 0);
    return;
  }
  for (const tp of task.startPositions()) deps.consumer.seek(tp);
}

/**
 * Closes a task without committing (a lost membership's tasks): that drops its work since its last
 * commit, as a rollback does, so a task with such work counts as one in `rollbacks` and its
 * stream_task_rollbacks_total, as rollBackTask counts, and an operator sees that work will be done
 * again. A task without (idle since its commit, still restoring, or rolled back already, as
 * exactly_once_v2's abort rolls back every task when the membership is lost) counts nothing, so
 * one event is never counted twice.
 */
export async function closeDirty(
  task: ActiveTask,
  deps: Pick<GuaranteeDeps, 'metrics' | 'recorder'>,
): Promise<void> {
  if (task.commitNeeded) {
    deps.metrics.rollbacks++;
    deps.recorder.rolledBack(task.id);
  }
  await task.close({ dirty: true });
}

/** Commits one task's transaction (exactly_once), or hands its failure to the task manager. */
export async function commitTaskTransaction(deps: GuaranteeDeps, task: ActiveTask): Promise<void> {
  try {
    const started = performance.now();
    await task.commitTransaction(deps.config.applicationId);
    deps.recorder.transactionCommitted(performance.now() - started);
    deps.failingSince.delete(task.id);
    deps.metrics.commits++;
  } catch (error) {
    await deps.onCommitError(task, error);
  }
}

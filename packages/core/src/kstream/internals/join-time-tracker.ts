import type { TaskId } from '../../processor/task-id.ts';
import { ObservedStreamTime } from './observed-stream-time.ts';

/** Kafka Streams' Long.MAX_VALUE for `minTime`: nothing known to be waiting. */
export const NO_MIN_TIME = Number.MAX_SAFE_INTEGER;

/**
 * What the two sides of one stream-stream join share in a task (Kafka Streams' TimeTracker, plus
 * the order of their store operations). Stream time is the largest timestamp either join
 * processor saw; `minTime` is a lower bound of the shared store's timestamps (Long.MAX when it was
 * empty at the last scan), so that a scan that cannot emit anything is skipped, exactly as Kafka
 * Streams skips it (the skip changes output in edge cases).
 */
export class JoinTimeTracker {
  private readonly observed: ObservedStreamTime;
  minTime = NO_MIN_TIME;
  /** The input record whose processing last scanned the shared store (see KStreamKStreamJoinProcessor). */
  lastScan: string | undefined;
  /** The shared store's rollback count the scan state belongs to. */
  seenRollbacks = 0;
  private chain: Promise<void> = Promise.resolve();

  /** `context`: a processor context of the task, whose rollbacks take stream time back. */
  constructor(context: object) {
    this.observed = new ObservedStreamTime(context);
  }

  get streamTime(): number {
    return this.observed.ms;
  }

  advanceStreamTime(timestamp: number): void {
    this.observed.observe(timestamp);
  }

  updateMinTime(timestamp: number): void {
    if (timestamp < this.minTime) this.minTime = timestamp;
  }

  /**
   * Runs `step` after every step enqueued before it. Store reads are async, so without one queue
   * per join and task the windowed processors' puts could overtake a probe that Kafka Streams runs
   * before them (a self-join would see its own record on the wrong side). A failed step rejects
   * the promise returned, for the task to report, and does not stop later steps.
   */
  enqueue(step: () => void | Promise<void>): Promise<void> {
    const result = this.chain.then(step);
    this.chain = result.catch(() => undefined);
    return result;
  }
}

/**
 * One tracker per task, created by whichever of the join's processors is initialized first. Keyed
 * by the task's own id object rather than its value, so that two instances of an application in
 * one process (sharing the Topology) never share a task's tracker.
 */
export class JoinTimeTrackers {
  private readonly byTask = new WeakMap<TaskId, JoinTimeTracker>();

  get(context: { readonly taskId: TaskId }): JoinTimeTracker {
    let tracker = this.byTask.get(context.taskId);
    if (tracker === undefined) {
      tracker = new JoinTimeTracker(context);
      this.byTask.set(context.taskId, tracker);
    }
    return tracker;
  }

  remove(taskId: TaskId): void {
    this.byTask.delete(taskId);
  }
}

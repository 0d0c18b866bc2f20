// A task's asynchronous operators, seen from the task: whether it may take another record
// (back-pressure), the wait the commit does before it commits offsets, a failure to surface, the
// metrics. A task without asynchronous operators has no lanes and pays one boolean read per record.
import type { Record } from '../record.ts';
import type { AsyncHost, AsyncLane } from './async-lane.ts';
import type { TaskExceptionHandling } from './exception-handling.ts';
import type { PendingWork } from './pending-work.ts';
import type { InputRecord } from './records.ts';
import type { RecordContextSlot } from './task-caches.ts';
import type { TaskRouting } from './task-routing.ts';

type AnyRecord = Record<unknown, unknown>;

/** Per task, summed over its asynchronous operators. */
export interface AsyncMetrics {
  /** Records taken and not yet released. */
  inFlight: number;
  /** Calls finished (with a result, an error or a timeout). */
  completed: number;
  latencyAvgMs: number;
  latencyMaxMs: number;
  timeouts: number;
}

export interface TaskAsyncHooks {
  /** The task's current input record, which a lane sets while it forwards a record's results. */
  current: RecordContextSlot;
  errors: Pick<TaskExceptionHandling, 'processing'>;
  routing: Pick<TaskRouting, 'wrapError'>;
  now(): number;
  /** A full task has room again, or finished everything: the runtime may give it records, flush its output. */
  onProgress?: (() => void) | undefined;
  /** Each finished call, for the runtime's metrics (StreamTaskOptions.onAsyncCall). */
  onCall?: ((latencyMs: number, timedOut: boolean) => void) | undefined;
}

export class TaskAsyncWork implements AsyncHost {
  private readonly lanes: AsyncLane[] = [];
  private fullLanes = 0;
  private error: unknown;
  private waiters: Array<() => void> = [];
  /** False while an operator is at maxInFlight or a call failed: the task takes no record. */
  canTake = true;

  constructor(private readonly hooks: TaskAsyncHooks) {}

  add(lane: AsyncLane): void {
    this.lanes.push(lane);
  }

  get hasLanes(): boolean {
    return this.lanes.length > 0;
  }

  get inFlight(): number {
    let n = 0;
    for (const lane of this.lanes) n += lane.size;
    return n;
  }

  /** Throws the first failure, once: at the task's next record or commit. */
  throwFailure(): void {
    const error = this.error;
    this.error = undefined;
    this.update();
    if (error !== undefined) throw error;
  }

  /** No record in flight and no processor promise pending (`work`); throws a failure. */
  async settled(work: PendingWork): Promise<void> {
    for (;;) {
      await this.idle();
      this.throwFailure();
      if (!work.busy) return;
      await work.drain();
    }
  }

  /** Resolves when no record is in flight, or at once when one failed (the task rolls back). */
  async idle(): Promise<void> {
    while (this.error === undefined && this.inFlight > 0)
      await new Promise<void>((r) => this.waiters.push(r));
  }

  // ---- AsyncHost ----

  emit(input: InputRecord | undefined, lane: AsyncLane, outputs: Iterable<AnyRecord>): void {
    const { current } = this.hooks;
    const previous = current.get();
    current.set(input);
    try {
      lane.forwardAll(outputs);
    } catch (error) {
      // A downstream node threw (and its handler said fail): the task fails as if it threw in process().
      this.failWith(error);
    } finally {
      current.set(previous);
    }
  }

  judge(...args: Parameters<AsyncHost['judge']>): boolean {
    return this.hooks.errors.processing(...args);
  }

  fail(error: unknown, nodeName: string, input: InputRecord | undefined): void {
    const where =
      input === undefined
        ? 'while punctuating'
        : `processing ${input.topic}-${input.partition} offset ${input.offset}`;
    this.failWith(this.hooks.routing.wrapError({ name: nodeName }, error, where));
  }

  changed(lane: AsyncLane): void {
    const before = this.fullLanes;
    this.fullLanes = 0;
    for (const l of this.lanes) if (l.blocked) this.fullLanes += 1;
    this.update();
    if (lane.size === 0 || this.fullLanes < before) {
      if (this.inFlight === 0) this.wake();
      this.hooks.onProgress?.();
    }
  }

  called(latencyMs: number, timedOut: boolean): void {
    this.hooks.onCall?.(latencyMs, timedOut);
  }

  now(): number {
    return this.hooks.now();
  }

  // ---- task life ----

  /** Rollback or close: every record in flight is forgotten (it is processed again after the rollback). */
  abandon(): void {
    for (const lane of this.lanes) lane.abandon();
    this.fullLanes = 0;
    this.error = undefined;
    this.update();
    this.wake();
  }

  metrics(): AsyncMetrics {
    let completed = 0;
    let total = 0;
    let max = 0;
    let timeouts = 0;
    for (const { stats } of this.lanes) {
      completed += stats.completed;
      total += stats.latencyTotalMs;
      max = Math.max(max, stats.latencyMaxMs);
      timeouts += stats.timeouts;
    }
    const latencyAvgMs = completed === 0 ? 0 : total / completed;
    return { inFlight: this.inFlight, completed, latencyAvgMs, latencyMaxMs: max, timeouts };
  }

  private failWith(error: unknown): void {
    this.error ??= error;
    this.update();
    this.wake();
    this.hooks.onProgress?.();
  }

  private update(): void {
    this.canTake = this.fullLanes === 0 && this.error === undefined;
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}

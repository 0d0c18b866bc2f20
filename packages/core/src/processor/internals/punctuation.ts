import { StreamsError } from '../../errors.ts';
import type { Cancellable, PunctuationType, Punctuator } from '../processor.ts';
import type { CommitListener } from './commit-point.ts';
import { isPromise } from './pending-work.ts';

/** One `schedule()` call: when it fires next, and who it belongs to. */
export class PunctuationSchedule<Owner> implements Cancellable {
  cancelled = false;

  constructor(
    readonly owner: Owner,
    readonly type: PunctuationType,
    readonly intervalMs: number,
    public nextMs: number,
    readonly punctuator: Punctuator,
  ) {}

  cancel(): void {
    this.cancelled = true;
  }

  /** After firing at `now`: the next time on the interval grid, skipping missed ones (no bursts). */
  advance(now: number): void {
    let next = this.nextMs + this.intervalMs;
    if (now >= next)
      next = this.nextMs + (Math.floor((now - this.nextMs) / this.intervalMs) + 1) * this.intervalMs;
    this.nextMs = next;
  }
}

/** The schedules of one task and one time type, in the order they were made. */
export class PunctuationQueue<Owner> {
  private schedules: PunctuationSchedule<Owner>[] = [];

  add(schedule: PunctuationSchedule<Owner>): void {
    this.schedules.push(schedule);
  }

  /** Schedules due at `now`, each advanced past `now`; cancelled ones are dropped. */
  due(now: number): PunctuationSchedule<Owner>[] {
    const due: PunctuationSchedule<Owner>[] = [];
    if (this.schedules.some((s) => s.cancelled)) this.schedules = this.schedules.filter((s) => !s.cancelled);
    for (const schedule of this.schedules) {
      if (schedule.nextMs <= now) due.push(schedule);
    }
    return due;
  }

  get size(): number {
    return this.schedules.length;
  }

  all(): readonly PunctuationSchedule<Owner>[] {
    return this.schedules;
  }
}

/**
 * A task's schedules, one queue per time type; `schedule` checks what a processor asks for.
 *
 * The schedules follow the task's commits and rollbacks: after a rollback in place the records
 * since the commit are processed again, and a stream-time punctuator that fired among them (its
 * output aborted) must fire again as stream time passes the same points; a schedule made while
 * processing them is made again, so the first one goes. Wall-clock schedules keep their next time:
 * the wall clock does not go back.
 */
export class TaskPunctuation<Owner extends { readonly name: string }> implements CommitListener {
  readonly streamTime = new PunctuationQueue<Owner>();
  readonly wallClock = new PunctuationQueue<Owner>();
  /** The schedules at the last commit (or once the processors' init() made theirs). */
  private atCommit = new Map<PunctuationSchedule<Owner>, number>();

  committed(): void {
    this.atCommit = new Map();
    for (const queue of [this.streamTime, this.wallClock])
      for (const schedule of queue.all()) this.atCommit.set(schedule, schedule.nextMs);
  }

  rolledBack(): void {
    for (const schedule of this.streamTime.all()) {
      const nextMs = this.atCommit.get(schedule);
      if (nextMs === undefined) schedule.cancel();
      else schedule.nextMs = nextMs;
    }
    for (const schedule of this.wallClock.all()) if (!this.atCommit.has(schedule)) schedule.cancel();
  }

  schedule(
    owner: Owner,
    intervalMs: number,
    type: PunctuationType,
    punctuator: Punctuator,
    now: () => number,
  ): Cancellable {
    if (!Number.isFinite(intervalMs) || intervalMs < 1) {
      throw new StreamsError(
        `Processor ${owner.name}: schedule interval must be at least 1 ms, got ${intervalMs}`,
      );
    }
    if (typeof punctuator !== 'function')
      throw new StreamsError(`Processor ${owner.name}: punctuator must be a function`);
    if (type === 'stream-time') {
      // Aligned to 0 as in Kafka Streams: fires at the first record, then on the interval grid.
      const schedule = new PunctuationSchedule(owner, type, intervalMs, 0, punctuator);
      this.streamTime.add(schedule);
      return schedule;
    }
    if (type === 'wall-clock-time') {
      const schedule = new PunctuationSchedule(owner, type, intervalMs, now() + intervalMs, punctuator);
      this.wallClock.add(schedule);
      return schedule;
    }
    throw new StreamsError(`Processor ${owner.name}: unknown punctuation type '${String(type)}'`);
  }

  /**
   * Fires the schedules of `queue` due at `now`, each advanced first so that a punctuator that
   * throws does not fire again at once; returns whether any was due.
   */
  fire(queue: PunctuationQueue<Owner>, now: number, hooks: FireHooks<Owner>): boolean {
    const due = queue.due(now);
    if (due.length === 0) return false;
    hooks.onDue(due.length);
    for (const schedule of due) {
      schedule.advance(now);
      let result: void | Promise<void>;
      try {
        result = schedule.punctuator(now);
      } catch (error) {
        if (hooks.handled?.(schedule.owner, error)) continue;
        throw hooks.wrap(schedule.owner, error);
      }
      if (isPromise(result)) hooks.track(result, schedule.owner);
    }
    return true;
  }
}

export interface FireHooks<Owner> {
  /** Told how many schedules are due, before any fires. */
  onDue(count: number): void;
  /** True: the punctuator's error was handled (the processing exception handler said continue). */
  handled?(owner: Owner, error: unknown): boolean;
  /** The error to throw for a punctuator that threw. */
  wrap(owner: Owner, error: unknown): Error;
  /** Takes a punctuator's promise (the task waits for it). */
  track(result: Promise<void>, owner: Owner): void;
}

import type { Cancellable, PunctuationType, Punctuator } from '../processor.ts';

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
}

// The timeouts of one asynchronous operator's calls (AsyncOptions.timeoutMs) on one timer. The
// calls of a lane share their timeoutMs and start one after another, so their deadlines come in
// start order: a FIFO whose head is the next to expire. Finished calls stay in it until they reach
// the head, where they are skipped. A setTimeout, its clearTimeout and a racing promise per call
// cost far more than a push and a shift (bench/async-http.bench.ts, 2026-12-06).

/** A call with a deadline; `done` once it finished, however. */
export interface Deadline {
  deadline: number;
  readonly done: boolean;
}

/** Past this many skipped entries at the front, the queue drops them (amortized O(1) per call). */
const COMPACT_AT = 1_024;

export class DeadlineQueue<T extends Deadline> {
  private items: T[] = [];
  private head = 0;
  private timer: ReturnType<typeof setTimeout> | undefined = undefined;
  private armedFor = 0;

  constructor(
    private readonly timeoutMs: number,
    /** Called for each call still running at its deadline. */
    private readonly expired: (item: T) => void,
    /** Wall-clock ms (not the task's clock, which a test may hold still). */
    private readonly now: () => number = Date.now,
  ) {}

  /** Calls waiting for their deadline (finished ones not yet skipped included). */
  get size(): number {
    return this.items.length - this.head;
  }

  /** Starts `item`'s clock: it expires `timeoutMs` from now unless done by then. */
  add(item: T): void {
    item.deadline = this.now() + this.timeoutMs;
    // Finished calls at the front go now rather than at the timer: they hold their records.
    while (this.head < this.items.length && this.items[this.head]!.done) this.head += 1;
    this.compact();
    this.items.push(item);
    if (this.timer === undefined) this.arm(item.deadline);
  }

  /** Forgets every call (the lane abandoned them) and stops the timer. */
  clear(): void {
    this.items = [];
    this.head = 0;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(deadline: number): void {
    this.armedFor = deadline;
    this.timer = setTimeout(this.fire, Math.max(1, deadline - this.now()));
  }

  private readonly fire = (): void => {
    this.timer = undefined;
    const now = this.now();
    while (this.head < this.items.length) {
      const item = this.items[this.head]!;
      if (!item.done && item.deadline > now) break;
      this.head += 1;
      // expired() may abandon the lane (a failing handler): clear() then empties the queue.
      if (!item.done) this.expired(item);
    }
    this.compact();
    if (this.timer === undefined && this.head < this.items.length) this.arm(this.items[this.head]!.deadline);
  };

  private compact(): void {
    if (this.head === this.items.length) {
      this.items.length = 0;
      this.head = 0;
    } else if (this.head >= COMPACT_AT && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
  }

  /** For tests: the deadline the timer is set for, or undefined when it is not set. */
  get nextFire(): number | undefined {
    return this.timer === undefined ? undefined : this.armedFor;
  }
}

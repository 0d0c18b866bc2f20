import { requireDuration } from './time-windows.ts';

/**
 * Kafka Streams' SlidingWindows (KIP-450): windows of a fixed time difference that follow the
 * records instead of the epoch. Two records fall into one window when their timestamps are at most
 * `timeDifferenceMs` apart; a window is [start, start + timeDifference], both ends inclusive, and
 * only windows that hold records exist.
 */
export class SlidingWindows {
  private constructor(
    readonly timeDifferenceMs: number,
    readonly graceMs: number,
  ) {}

  /** Windows that close as soon as stream time passes their end. */
  static ofTimeDifferenceWithNoGrace(timeDifferenceMs: number): SlidingWindows {
    return SlidingWindows.ofTimeDifferenceAndGrace(timeDifferenceMs, 0);
  }

  /** Windows that take out-of-order records until stream time passes their end plus `graceMs`. */
  static ofTimeDifferenceAndGrace(timeDifferenceMs: number, graceMs: number): SlidingWindows {
    // Kafka Streams allows 0; a window store needs a positive size here.
    requireDuration('SlidingWindows time difference', timeDifferenceMs, 1);
    requireDuration('SlidingWindows grace', graceMs, 0);
    return new SlidingWindows(timeDifferenceMs, graceMs);
  }

  /**
   * Kafka Streams' default retention of a sliding-window store: twice the time difference plus the
   * grace, since creating a record's windows reads the windows up to 2 × timeDifference before it.
   */
  get retentionMs(): number {
    return 2 * this.timeDifferenceMs + this.graceMs;
  }
}

import { TopologyError } from '../errors.ts';
import { requireDuration } from './time-windows.ts';

function requireWholeMs(what: string, ms: number): void {
  if (!Number.isSafeInteger(ms)) throw new TopologyError(`${what} must be a whole number of ms, got ${ms}`);
}

/**
 * Kafka Streams' JoinWindows for stream-stream joins: a record at t joins the other side's records
 * with timestamps in [t - before, t + after] (mirrored for the other side). Both bounds start at
 * the time difference; `before`/`after` make the window asymmetric and may be negative as long as
 * the window (before + after) is not. Records later than the grace are not joined any more, and a
 * left or outer join emits its unmatched result once stream time passes t + after + grace.
 */
export class JoinWindows {
  private constructor(
    readonly beforeMs: number,
    readonly afterMs: number,
    readonly graceMs: number,
  ) {
    if (beforeMs + afterMs < 0) {
      throw new TopologyError(
        `JoinWindows: the window (before ${beforeMs} ms + after ${afterMs} ms) must not be negative`,
      );
    }
  }

  /** Records within `timeDifferenceMs` of each other join; no out-of-order record is joined late. */
  static ofTimeDifferenceWithNoGrace(timeDifferenceMs: number): JoinWindows {
    return JoinWindows.ofTimeDifferenceAndGrace(timeDifferenceMs, 0);
  }

  /** As above, taking out-of-order records until `graceMs` after the window's end. */
  static ofTimeDifferenceAndGrace(timeDifferenceMs: number, graceMs: number): JoinWindows {
    requireDuration('JoinWindows time difference', timeDifferenceMs, 0);
    requireDuration('JoinWindows grace', graceMs, 0);
    return new JoinWindows(timeDifferenceMs, timeDifferenceMs, graceMs);
  }

  /** How far back from a record the other side is searched (may be negative). */
  before(timeDifferenceMs: number): JoinWindows {
    requireWholeMs('JoinWindows before', timeDifferenceMs);
    return new JoinWindows(timeDifferenceMs, this.afterMs, this.graceMs);
  }

  /** How far forward from a record the other side is searched (may be negative). */
  after(timeDifferenceMs: number): JoinWindows {
    requireWholeMs('JoinWindows after', timeDifferenceMs);
    return new JoinWindows(this.beforeMs, timeDifferenceMs, this.graceMs);
  }

  /** Kafka Streams' size(): before + after, the window stores' window size. */
  get sizeMs(): number {
    return this.beforeMs + this.afterMs;
  }

  /** Both sides' window stores keep records for the window size plus the grace. */
  get retentionMs(): number {
    return this.sizeMs + this.graceMs;
  }
}

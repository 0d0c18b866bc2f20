import { TopologyError } from '../errors.ts';
import type { Window } from '../windowed.ts';

export function requireDuration(what: string, ms: number, min: number): void {
  if (!Number.isSafeInteger(ms) || ms < min) {
    throw new TopologyError(`${what} must be a whole number of ms >= ${min}, got ${ms}`);
  }
}

/**
 * Kafka Streams' TimeWindows: fixed-size windows aligned to the epoch, tumbling (advance = size)
 * or hopping (advance < size, so a record falls into size / advance windows). A window is
 * [start, start + size); it accepts records until stream time reaches its end plus the grace.
 */
export class TimeWindows {
  private constructor(
    readonly sizeMs: number,
    readonly advanceMs: number,
    readonly graceMs: number,
  ) {}

  /** Tumbling windows that close as soon as stream time reaches their end. */
  static ofSizeWithNoGrace(sizeMs: number): TimeWindows {
    return TimeWindows.ofSizeAndGrace(sizeMs, 0);
  }

  /** Tumbling windows that take out-of-order records until `graceMs` after their end. */
  static ofSizeAndGrace(sizeMs: number, graceMs: number): TimeWindows {
    requireDuration('TimeWindows size', sizeMs, 1);
    requireDuration('TimeWindows grace', graceMs, 0);
    return new TimeWindows(sizeMs, sizeMs, graceMs);
  }

  /** Hopping windows: a new window every `advanceMs` (0 < advance <= size). */
  advanceBy(advanceMs: number): TimeWindows {
    requireDuration('TimeWindows advance', advanceMs, 1);
    if (advanceMs > this.sizeMs) {
      throw new TopologyError(
        `TimeWindows advance (${advanceMs} ms) must not be larger than the window size (${this.sizeMs} ms)`,
      );
    }
    return new TimeWindows(this.sizeMs, advanceMs, this.graceMs);
  }

  /** The windows that contain `timestamp`, oldest first. */
  windowsFor(timestamp: number): Window[] {
    const out: Window[] = [];
    const first = Math.max(0, timestamp - this.sizeMs + this.advanceMs);
    for (let start = first - (first % this.advanceMs); start <= timestamp; start += this.advanceMs) {
      out.push({ start, end: start + this.sizeMs });
    }
    return out;
  }

  /** Kafka Streams' default retention of a windowed store: size plus grace. */
  get retentionMs(): number {
    return this.sizeMs + this.graceMs;
  }
}

import { requireDuration } from './time-windows.ts';

/**
 * Kafka Streams' SessionWindows: a key's records that follow one another with gaps of at most
 * `inactivityGapMs` form one session [first timestamp, last timestamp] (both inclusive); a record
 * that bridges two sessions merges them. A session takes records until stream time passes its end
 * plus the gap plus the grace.
 */
export class SessionWindows {
  private constructor(
    readonly inactivityGapMs: number,
    readonly graceMs: number,
  ) {}

  static ofInactivityGapWithNoGrace(inactivityGapMs: number): SessionWindows {
    return SessionWindows.ofInactivityGapAndGrace(inactivityGapMs, 0);
  }

  static ofInactivityGapAndGrace(inactivityGapMs: number, graceMs: number): SessionWindows {
    requireDuration('SessionWindows inactivity gap', inactivityGapMs, 1);
    requireDuration('SessionWindows grace', graceMs, 0);
    return new SessionWindows(inactivityGapMs, graceMs);
  }

  /** Kafka Streams' default retention of a session store: the gap plus the grace. */
  get retentionMs(): number {
    return this.inactivityGapMs + this.graceMs;
  }
}

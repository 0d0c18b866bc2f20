// The pause before a task runs again after the production handler answered 'retry': Kafka's
// retry.backoff.ms (100 ms) doubling per retry up to retry.backoff.max.ms (1 s), as Kafka's
// clients back off. A retry long after the last one starts again from the first pause.

export const RETRY_BACKOFF_MS = 100;
export const RETRY_BACKOFF_MAX_MS = 1_000;
/** A retry this long after the previous one counts as a first retry. */
const QUIET_MS = 10_000;

export class RetryBackoff {
  private attempts = 0;
  private last = Number.NEGATIVE_INFINITY;

  constructor(private readonly now: () => number = Date.now) {}

  /** The pause before this retry. */
  next(): number {
    const now = this.now();
    if (now - this.last > QUIET_MS) this.attempts = 0;
    this.last = now;
    const pause = Math.min(RETRY_BACKOFF_MS * 2 ** this.attempts, RETRY_BACKOFF_MAX_MS);
    this.attempts += 1;
    return pause;
  }
}

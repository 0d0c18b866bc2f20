import type { CommitListener } from '../../processor/internals/commit-point.ts';

interface CommitListening {
  onCommitAndRollback?(listener: CommitListener): void;
}

/**
 * A time-based operator's observed stream time: the largest timestamp it has seen (Kafka Streams'
 * observedStreamTime), which decides what is late. A task that rolls back in place (a failed
 * commit, a processor's exception) processes the records since its last commit again; this value
 * goes back to what it was at that commit with the stores, or those records would look late to
 * windows that were still open then and be dropped.
 */
export class ObservedStreamTime implements CommitListener {
  private value = -1;
  private atCommit = -1;

  /** Registered with the task behind `context` (the runtime's and the test driver's). */
  constructor(context: object) {
    (context as CommitListening).onCommitAndRollback?.(this);
  }

  get ms(): number {
    return this.value;
  }

  /** Takes the record's timestamp into account; returns the observed stream time. */
  observe(timestamp: number): number {
    if (timestamp > this.value) this.value = timestamp;
    return this.value;
  }

  committed(): void {
    this.atCommit = this.value;
  }

  rolledBack(): void {
    this.value = this.atCommit;
  }
}

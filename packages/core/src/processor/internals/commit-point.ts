import type { CheckpointEntry } from '@kstreams/state-store';

/**
 * Processor state kept outside the stores (an operator's observed stream time) that must follow
 * the task's commits and rollbacks as the stores do.
 */
export interface CommitListener {
  committed(): void;
  rolledBack(): void;
}

/**
 * What a task has done since its last commit, and what that commit was: the consumed offsets and
 * stream time to commit next, the ones a rollback returns to, and whether a commit is needed
 * (work done) or requested (by a processor or a store). StreamTask owns one; keeping the pairs
 * together is what makes a rollback return to exactly what was committed.
 */
export class CommitPoint {
  /** The largest timestamp processed (Kafka Streams' stream time); -1 before the first record. */
  streamTimeMs = -1;
  /** Work done since the last commit: processed or skipped records, fired punctuators. */
  needsCommit = false;
  /** A processor or store asked for a commit as soon as possible. */
  wantsCommit = false;
  /** A rollback goes back to it: else records processed again look late to their windows. */
  private committedStreamTimeMs = -1;
  private consumed = new Map<string, number>();
  private committedConsumed = new Map<string, number>();
  /** Stores moved on but the offsets did not reach Kafka (stale generation): commit them again. */
  private offsetsUncommitted = false;
  private readonly listeners: CommitListener[] = [];

  listen(listener: CommitListener): void {
    this.listeners.push(listener);
  }

  get commitNeeded(): boolean {
    return this.needsCommit || this.offsetsUncommitted;
  }

  advanceStreamTime(timestamp: number): void {
    if (timestamp > this.streamTimeMs) this.streamTimeMs = timestamp;
  }

  /** The next offset to read from `topic` is `offset` (the last processed + 1). */
  consume(topic: string, offset: number): void {
    this.consumed.set(topic, offset);
  }

  /** Moves the consumed offset forward only; false when it is there already. */
  skipTo(topic: string, offset: number): boolean {
    if (offset <= (this.consumed.get(topic) ?? -1)) return false;
    this.consumed.set(topic, offset);
    this.needsCommit = true;
    return true;
  }

  consumedOffsets(partition: number): CheckpointEntry[] {
    return [...this.consumed].map(([topic, offset]) => ({ topic, partition, offset }));
  }

  /** Kafka took the commit: it becomes what a rollback returns to. */
  committed(offsetsCommitted: boolean): void {
    this.committedConsumed = new Map(this.consumed);
    this.committedStreamTimeMs = this.streamTimeMs;
    this.offsetsUncommitted = !offsetsCommitted;
    this.needsCommit = false;
    this.wantsCommit = false;
    for (const listener of this.listeners) listener.committed();
  }

  /** Back to the last commit's offsets and stream time. */
  rollback(): void {
    this.consumed = new Map(this.committedConsumed);
    this.streamTimeMs = this.committedStreamTimeMs;
    this.needsCommit = false;
    this.wantsCommit = false;
    for (const listener of this.listeners) listener.rolledBack();
  }
}

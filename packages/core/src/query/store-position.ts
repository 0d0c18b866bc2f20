// The position of one task's store (Kafka Streams keeps it in each store, KIP-796): the offset of
// the last input record written into it, per input topic and partition. Writes are buffered until
// a commit, and interactive queries read committed data only, so the position queries see moves at
// the commit too: `pending` collects the writes since the last commit, `committed` is what a query
// is told.
import { Position } from './position.ts';

/** The input record a write happens under (the task's record context). */
export interface WriteContext {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
}

export class StorePosition {
  private pending = Position.emptyPosition();
  private readonly committedPosition = Position.emptyPosition();
  /** The record of the last write seen: a record writing the store many times counts once. */
  private last: WriteContext | undefined;

  constructor(private readonly current: () => WriteContext | undefined) {}

  /** A put or delete went into the store's buffer: it belongs to the current input record, if any. */
  written(): void {
    const record = this.current();
    // Punctuators write without an input record: Kafka Streams' position skips them too.
    if (record === undefined || record === this.last) return;
    this.last = record;
    this.pending.withComponent(record.topic, record.partition, record.offset);
  }

  /** The buffered writes reached the store. */
  committed(): void {
    if (!this.pending.isEmpty()) {
      this.committedPosition.mergeInPlace(this.pending);
      this.pending = Position.emptyPosition();
    }
    this.last = undefined;
  }

  /** The buffered writes were dropped. */
  rolledBack(): void {
    this.pending = Position.emptyPosition();
    this.last = undefined;
  }

  /**
   * After a restart: the store holds every record before the task's committed input offsets (it
   * was checkpointed or restored at least that far), so its position starts one below each.
   */
  seed(committedOffsets: ReadonlyArray<{ topic: string; partition: number; offset: number }>): void {
    for (const { topic, partition, offset } of committedOffsets) {
      const last = offset - 1;
      const seen = this.committedPosition.offset(topic, partition);
      if (last >= 0 && (seen === undefined || seen < last))
        this.committedPosition.withComponent(topic, partition, last);
    }
  }

  /** The committed position (a copy). */
  get(): Position {
    return this.committedPosition.copy();
  }
}

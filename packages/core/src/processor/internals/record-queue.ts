import type { InputRecord } from './records.ts';

/**
 * Kafka Streams' RecordQueue: the fetched, not yet processed records of one input partition of a
 * task, in offset order. The task's PartitionGroup picks among the heads of its queues.
 */
export class RecordQueue {
  private records: InputRecord[] = [];
  private head = 0;
  /** The partition's log end as last seen (a fetch's high watermark, or the admin's end offset). */
  endOffset: number | undefined;
  /** Next offset the fetch hands to this queue (the offset after the last record added). */
  fetchPosition = -1;
  /**
   * Offsets after the queued records that hold nothing for the task (transaction markers): the
   * consumed offset moves past them once the records before them are processed.
   */
  skipAfterDrain: number | undefined;
  /** Records taken out to be processed, ever (a source node's process-total at debug level). */
  polled = 0;

  constructor(
    readonly topic: string,
    readonly partition: number,
  ) {}

  get size(): number {
    return this.records.length - this.head;
  }

  get isEmpty(): boolean {
    return this.head >= this.records.length;
  }

  /** The timestamp of the next record; undefined when empty. */
  get headTimestamp(): number | undefined {
    return this.records[this.head]?.timestamp;
  }

  add(record: InputRecord): void {
    this.records.push(record);
    this.fetchPosition = record.offset + 1;
  }

  poll(): InputRecord | undefined {
    if (this.head >= this.records.length) return undefined;
    const record = this.records[this.head++]!;
    this.polled++;
    // Compact now and then instead of shift() per record, which is O(n) on large arrays.
    if (this.head === this.records.length) {
      this.records = [];
      this.head = 0;
    } else if (this.head >= 1024 && this.head * 2 >= this.records.length) {
      this.records = this.records.slice(this.head);
      this.head = 0;
    }
    return record;
  }

  /** Records the fetch still has to deliver, as far as the last seen log end tells; -1: unknown. */
  knownLag(): number {
    if (this.endOffset === undefined || this.fetchPosition < 0) return -1;
    return Math.max(0, this.endOffset - this.fetchPosition);
  }

  /** Drops the queued records (a rollback seeks back to the last commit and fetches them again). */
  clear(position: number): void {
    this.records = [];
    this.head = 0;
    this.fetchPosition = position;
    this.skipAfterDrain = undefined;
  }
}

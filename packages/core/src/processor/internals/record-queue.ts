import type { InputRecord } from './records.ts';

/**
 * How a queue reads what it holds. The runtime queues fetched messages as the consumer handed
 * them over and makes each an InputRecord (with its key and value views) when it is processed:
 * made at fetch, a slice's records outlived V8's young generation while they waited (in the word
 * count's allocation profile about half of what was promoted).
 */
export interface InputReader {
  timestamp(fetched: unknown): number;
  record(topic: string, partition: number, fetched: unknown): InputRecord;
}

/** For queues of InputRecords (tests, the test driver). */
export const INPUT_RECORDS: InputReader = {
  timestamp: (fetched) => (fetched as InputRecord).timestamp,
  record: (_topic, _partition, fetched) => fetched as InputRecord,
};

/**
 * Kafka Streams' RecordQueue: the fetched, not yet processed records of one input partition of a
 * task, in offset order. The task's PartitionGroup picks among the heads of its queues.
 */
export class RecordQueue {
  private records: unknown[] = [];
  private head = 0;
  /**
   * The partition's end as last seen (a fetch response's last stable offset under read_committed,
   * else its high watermark; before the first fetch, the admin's end offset).
   */
  endOffset: number | undefined;
  /** The offset the last empty fetch response was asked from (-1: none since the last clear). */
  emptyFetchAt = -1;
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
    private readonly reader: InputReader = INPUT_RECORDS,
  ) {}

  get size(): number {
    return this.records.length - this.head;
  }

  get isEmpty(): boolean {
    return this.head >= this.records.length;
  }

  /** The timestamp of the next record; undefined when empty. */
  get headTimestamp(): number | undefined {
    return this.head < this.records.length ? this.reader.timestamp(this.records[this.head]) : undefined;
  }

  /** Queues a record (as its reader reads it) at `offset`. */
  add(fetched: unknown, offset: number): void {
    this.records.push(fetched);
    this.fetchPosition = offset + 1;
  }

  poll(): InputRecord | undefined {
    if (this.head >= this.records.length) return undefined;
    const record = this.reader.record(this.topic, this.partition, this.records[this.head++]);
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
    // An empty fetch at an offset past the queue's position (transaction markers the queue did not
    // see) means the consumer stands there.
    return Math.max(0, this.endOffset - Math.max(this.fetchPosition, this.emptyFetchAt));
  }

  /** Drops the queued records (a rollback seeks back to the last commit and fetches them again). */
  clear(position: number): void {
    this.records = [];
    this.head = 0;
    this.fetchPosition = position;
    this.emptyFetchAt = -1;
    this.skipAfterDrain = undefined;
  }
}

import { type InputReader, RecordQueue } from './record-queue.ts';
import type { InputRecord } from './records.ts';
import { topicPartitionKey } from './records.ts';

/** Kafka Streams' MAX_TASK_IDLE_MS_DISABLED: never wait for an empty partition. */
export const MAX_TASK_IDLE_MS_DISABLED = -1;

export interface PartitionGroupOptions {
  /** Kafka Streams' max.task.idle.ms: how long to wait for a partition that has no data (default 0). */
  maxTaskIdleMs: number;
  /**
   * How long to wait at most for a partition whose lag is above 0 or unknown; undefined (the
   * runtime's case): no bound, as Kafka Streams, since every fetch response, empty ones too,
   * tells the lag (kafka/fetch-lag.ts). Only when kafkajs' modules are out of reach of that hook
   * does the runtime set one (`maxFetchWaitMs`), as a batch then tells a partition's end only
   * with records, and a wait on a stale lag would never end.
   */
  maxFetchWaitMs?: number | undefined;
  /** How the queues read what they hold (default: InputRecords). */
  reader?: InputReader | undefined;
  /** A wait for a partition with records on the broker begins (Kafka Streams logs it). */
  onWaitForLag?(queue: RecordQueue, lag: number): void;
  /** Processing goes on without the given empty partitions, their idle time over (once per episode). */
  onEnforcedProcessing?(waitedFor: RecordQueue[], nowMs: number): void;
  /** A partition's own reader (its source's timestamp extractor stamps the head); else `reader`. */
  readerFor?: ((topic: string, partition: number) => InputReader | undefined) | undefined;
}

/**
 * The bound on a wait for data on the broker when fetches cannot tell an empty partition's lag:
 * several fetches' worth, and never less than the app's maxTaskIdleMs.
 */
export function maxFetchWaitMs(maxTaskIdleMs: number, consumerMaxWaitTimeMs: number): number {
  return Math.max(1_000, 10 * consumerMaxWaitTimeMs, maxTaskIdleMs);
}

/**
 * Kafka Streams' PartitionGroup: one RecordQueue per input partition of a task; the next record is
 * the head with the lowest timestamp, so that a task processes its input in timestamp order across
 * partitions (what makes joins and windows deterministic). Fetching stays batched: only the order
 * inside the task changes.
 */
export class PartitionGroup {
  private readonly queues = new Map<string, RecordQueue>();
  private readonly list: RecordQueue[];
  /** Until when each caught-up empty partition is waited for (Kafka Streams' idlePartitionDeadlines). */
  private readonly idleDeadlines = new Map<RecordQueue, number>();
  /** Since when each empty partition with lag above 0 or unknown has been waited for. */
  private readonly fetchWaitSince = new Map<RecordQueue, number>();
  private buffered = 0;
  private enforced = 0;
  /** Whether the last readyToProcess went on without an empty partition. */
  private enforcing = false;

  constructor(
    partitions: ReadonlyArray<{ topic: string; partition: number }>,
    private readonly options: PartitionGroupOptions,
  ) {
    this.list = partitions.map(
      (p) =>
        new RecordQueue(p.topic, p.partition, options.readerFor?.(p.topic, p.partition) ?? options.reader),
    );
    for (const q of this.list) this.queues.set(topicPartitionKey(q.topic, q.partition), q);
  }

  queue(topic: string, partition: number): RecordQueue | undefined {
    return this.queues.get(topicPartitionKey(topic, partition));
  }

  add(queue: RecordQueue, record: InputRecord): void {
    this.addFetched(queue, record, record.offset);
  }

  /** Queues a fetched message, which the options' reader makes a record when it is taken. */
  addFetched(queue: RecordQueue, fetched: unknown, offset: number): void {
    queue.add(fetched, offset);
    this.buffered++;
  }

  /** Records fetched and not processed yet, over all partitions. */
  get numBuffered(): number {
    return this.buffered;
  }

  /** How often a record was processed while another partition had no data (Kafka Streams' enforced processing). */
  get enforcedProcessingTotal(): number {
    return this.enforced;
  }

  /**
   * Whether the task may process its next record now (Kafka Streams' readyToProcess). For each
   * empty partition: lag unknown, or known above 0 (records on the broker, none fetched) -> wait,
   * without a deadline; lag 0 -> wait until maxTaskIdleMs after it was found empty, then process
   * the others ("enforced processing"). maxTaskIdleMs -1: never wait.
   */
  readyToProcess(nowMs: number): boolean {
    if (this.buffered === 0) return false;
    if (this.list.length === 1 || this.options.maxTaskIdleMs === MAX_TASK_IDLE_MS_DISABLED) return true;
    // Allocated only when a partition is given up on: this runs once per record processed.
    let enforced: RecordQueue[] | undefined;
    for (const q of this.list) {
      if (!q.isEmpty) {
        this.idleDeadlines.delete(q);
        this.fetchWaitSince.delete(q);
        continue;
      }
      const lag = q.knownLag();
      if (lag !== 0) {
        // The next fetch brings the data (or tells the lag): no deadline.
        this.idleDeadlines.delete(q);
        if (!this.fetchWaitSince.has(q)) {
          this.fetchWaitSince.set(q, nowMs);
          if (lag > 0) this.options.onWaitForLag?.(q, lag);
        }
        const bound = this.options.maxFetchWaitMs;
        if (bound === undefined || nowMs - this.fetchWaitSince.get(q)! < bound) return this.waiting();
      } else {
        this.fetchWaitSince.delete(q);
        let deadline = this.idleDeadlines.get(q);
        if (deadline === undefined) {
          deadline = nowMs + this.options.maxTaskIdleMs;
          this.idleDeadlines.set(q, deadline);
        }
        if (nowMs < deadline) return this.waiting();
      }
      if (enforced === undefined) enforced = [q];
      else enforced.push(q);
    }
    if (enforced === undefined) {
      this.enforcing = false;
      return true;
    }
    this.enforced++;
    if (!this.enforcing) this.options.onEnforcedProcessing?.(enforced, nowMs);
    this.enforcing = true;
    return true;
  }

  private waiting(): false {
    this.enforcing = false;
    return false;
  }

  /** The queue whose head has the lowest timestamp (the earliest fetched on a tie); undefined when all are empty. */
  nextQueue(): RecordQueue | undefined {
    if (this.list.length === 1) return this.list[0]!.isEmpty ? undefined : this.list[0];
    let best: RecordQueue | undefined;
    let bestTs = Number.POSITIVE_INFINITY;
    for (const q of this.list) {
      const ts = q.headTimestamp;
      if (ts !== undefined && ts < bestTs) {
        best = q;
        bestTs = ts;
      }
    }
    return best;
  }

  /** Takes the next record in timestamp order; check readyToProcess first. */
  nextRecord(): { record: InputRecord; queue: RecordQueue } | undefined {
    const queue = this.nextQueue();
    const record = queue?.poll();
    if (queue === undefined || record === undefined) return undefined;
    this.buffered--;
    return { record, queue };
  }

  /** Every wait starts again now (after a rebalance, in which nothing was fetched). */
  restartWaits(): void {
    this.idleDeadlines.clear();
    this.fetchWaitSince.clear();
  }

  /** After a rollback: every queue empty again, fetching from the given positions. */
  clear(positions: ReadonlyArray<{ topic: string; partition: number; offset: number }>): void {
    for (const p of positions) this.queue(p.topic, p.partition)?.clear(p.offset);
    this.buffered = this.list.reduce((n, q) => n + q.size, 0);
    this.idleDeadlines.clear();
    this.fetchWaitSince.clear();
  }

  /**
   * The partition's end as a fetch response (or the admin, at the task's start) told it: the last
   * stable offset under read_committed, else the high watermark. `emptyFetchAt`: the offset an
   * empty fetch response was asked from (the consumer stands there, whatever the queue saw).
   */
  updateEndOffset(topic: string, partition: number, endOffset: number, emptyFetchAt?: number): void {
    const q = this.queue(topic, partition);
    if (q === undefined || !Number.isFinite(endOffset) || endOffset < 0) return;
    q.endOffset = endOffset;
    if (emptyFetchAt !== undefined && emptyFetchAt > q.emptyFetchAt) q.emptyFetchAt = emptyFetchAt;
  }
}

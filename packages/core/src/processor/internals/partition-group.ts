import { type InputReader, RecordQueue } from './record-queue.ts';
import type { InputRecord } from './records.ts';
import { topicPartitionKey } from './records.ts';

/** Kafka Streams' MAX_TASK_IDLE_MS_DISABLED: never wait for an empty partition. */
export const MAX_TASK_IDLE_MS_DISABLED = -1;

export interface PartitionGroupOptions {
  /** Kafka Streams' max.task.idle.ms: how long to wait for a partition that has no data (default 0). */
  maxTaskIdleMs: number;
  /**
   * How long to wait at most for a partition whose known lag is above 0 or unknown. Kafka Streams
   * waits without bound, reading each fetch's lag; kafkajs shows a partition's log end only with
   * fetched records (and counts open transactions in it), so our knowledge can be stale, and an
   * unbounded wait could stall the task.
   */
  maxFetchWaitMs: number;
  /** How the queues read what they hold (default: InputRecords). */
  reader?: InputReader | undefined;
  /** A partition's own reader (its source's timestamp extractor stamps the head); else `reader`. */
  readerFor?: ((topic: string, partition: number) => InputReader | undefined) | undefined;
}

/**
 * How long a task waits for a partition whose known lag is above 0 or unknown: several fetches'
 * worth (the data comes with the next one), and never less than the app's maxTaskIdleMs, which
 * Kafka Streams never cuts short for data on the broker. A task that has just moved to another
 * instance, on a busy machine, can get one partition's backlog seconds before the other's; a join
 * that processed the first alone would close its windows early.
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
  /** Since when each empty partition has been waited for (wall clock), by kind of wait. */
  private readonly idleSince = new Map<RecordQueue, number>();
  private readonly fetchWaitSince = new Map<RecordQueue, number>();
  private buffered = 0;
  private enforced = 0;

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
   * Whether the task may process its next record now: every partition has data, or each empty one
   * is known to be caught up and has been so for maxTaskIdleMs (Kafka Streams' readyToProcess).
   */
  readyToProcess(nowMs: number): boolean {
    if (this.buffered === 0) return false;
    if (this.list.length === 1 || this.options.maxTaskIdleMs === MAX_TASK_IDLE_MS_DISABLED) return true;
    let enforced = false;
    for (const q of this.list) {
      if (!q.isEmpty) {
        this.idleSince.delete(q);
        this.fetchWaitSince.delete(q);
        continue;
      }
      const lag = q.knownLag();
      if (lag !== 0) {
        // Data is on the broker (or we do not know yet): the next fetch brings it.
        this.idleSince.delete(q);
        const since = this.since(this.fetchWaitSince, q, nowMs);
        if (nowMs - since < this.options.maxFetchWaitMs) return false;
      } else {
        this.fetchWaitSince.delete(q);
        const since = this.since(this.idleSince, q, nowMs);
        if (nowMs - since < this.options.maxTaskIdleMs) return false;
      }
      enforced = true;
    }
    if (enforced) this.enforced++;
    return true;
  }

  private since(map: Map<RecordQueue, number>, q: RecordQueue, nowMs: number): number {
    let since = map.get(q);
    if (since === undefined) {
      since = nowMs;
      map.set(q, since);
    }
    return since;
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
    this.idleSince.clear();
    this.fetchWaitSince.clear();
  }

  /** After a rollback: every queue empty again, fetching from the given positions. */
  clear(positions: ReadonlyArray<{ topic: string; partition: number; offset: number }>): void {
    for (const p of positions) this.queue(p.topic, p.partition)?.clear(p.offset);
    this.buffered = this.list.reduce((n, q) => n + q.size, 0);
    this.idleSince.clear();
    this.fetchWaitSince.clear();
  }

  updateEndOffset(topic: string, partition: number, endOffset: number): void {
    const q = this.queue(topic, partition);
    if (q !== undefined && (q.endOffset === undefined || endOffset > q.endOffset)) q.endOffset = endOffset;
  }
}

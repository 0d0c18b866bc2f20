// An instance's changelog reader (Kafka Streams' restore consumer): one long-lived fetch loop by
// manual assignment (partition-fetcher.ts, no consumer group) over the changelog partitions that
// restores of new active tasks and standby tasks read, each partition handed to the reader that
// asked for it. A batch fetched for a partition that was given up since (or handed to another
// reader) is dropped. When the fetch loop fails for good, every reader hears of it and the next
// read starts a new loop.
import type { Kafka } from 'kafkajs';
import { topicPartitionKey } from '../processor/internals/records.ts';
import { type FetcherBatch, type FetcherPartition, PartitionFetcher } from './partition-fetcher.ts';

export interface ChangelogPartitionReader {
  onBatch(batch: FetcherBatch): Promise<void>;
  /** A fetched range held only transaction markers or aborted records: the position is past `last`. */
  onControlRecords?(last: number): void;
  /** The position left the log: where to go instead, or throw. */
  onOffsetOutOfRange(position: number): Promise<number>;
  /** The fetch loop stopped for good; the partition is no longer read. */
  onError(error: Error): void;
}

export interface ChangelogReaderOptions {
  kafka: Kafka;
  /** As the restore always read: read_committed under exactly_once. */
  readCommitted: boolean;
  /** Each answer's end per partition (the last stable offset under read_committed). */
  onFetchedEnd?(topic: string, partition: number, endOffset: number): void;
}

/** As kafkajs' consumer defaults, which restore used until 2026-12-06. */
const MAX_BYTES = 10 * 1024 * 1024;
const MAX_BYTES_PER_PARTITION = 1024 * 1024;

export class ChangelogReader {
  private fetcher?: PartitionFetcher;
  private started?: Promise<void>;
  private readonly readers = new Map<string, ChangelogPartitionReader>();

  constructor(private readonly options: ChangelogReaderOptions) {}

  /** Reads the partition from `offset` on for `reader`, until `stop`. */
  read(tp: FetcherPartition, offset: number, reader: ChangelogPartitionReader): void {
    this.readers.set(topicPartitionKey(tp.topic, tp.partition), reader);
    this.loop().assign([{ topic: tp.topic, partition: tp.partition, offset }]);
  }

  /**
   * Stops reading these partitions. Not awaited: a handler may be waiting for what its caller
   * holds; the batches fetched meanwhile are stale and dropped.
   */
  stop(tps: FetcherPartition[]): void {
    for (const { topic, partition } of tps) this.readers.delete(topicPartitionKey(topic, partition));
    if (tps.length > 0)
      void this.fetcher?.unassign(tps.map(({ topic, partition }) => ({ topic, partition })));
  }

  /**
   * Fetches nothing more for these partitions until `resume`, keeping their positions (standbys
   * wait while the thread's actives start, issue 37); batches fetched before are stale.
   */
  pause(tps: FetcherPartition[]): void {
    if (tps.length > 0) this.fetcher?.pause(tps);
  }

  resume(tps: FetcherPartition[]): void {
    if (tps.length > 0) this.fetcher?.resume(tps);
  }

  async close(): Promise<void> {
    this.readers.clear();
    const fetcher = this.fetcher;
    this.fetcher = undefined;
    await this.started?.catch(() => {});
    await fetcher?.stop();
  }

  private readerOf(topic: string, partition: number): ChangelogPartitionReader | undefined {
    return this.readers.get(topicPartitionKey(topic, partition));
  }

  private loop(): PartitionFetcher {
    if (this.fetcher !== undefined) return this.fetcher;
    const fetcher: PartitionFetcher = new PartitionFetcher({
      kafka: this.options.kafka,
      readCommitted: this.options.readCommitted,
      maxWaitMs: 100,
      maxBytes: MAX_BYTES,
      maxBytesPerPartition: MAX_BYTES_PER_PARTITION,
      onFetchedEnd: (topic, partition, endOffset) => this.options.onFetchedEnd?.(topic, partition, endOffset),
      onBatch: async (batch) => {
        const reader = this.readerOf(batch.topic, batch.partition);
        if (reader === undefined || batch.isStale()) return;
        await reader.onBatch(batch);
      },
      onControlRecords: (topic, partition, _first, last) =>
        this.readerOf(topic, partition)?.onControlRecords?.(last),
      onOffsetOutOfRange: async (tp, position) => {
        const reader = this.readerOf(tp.topic, tp.partition);
        if (reader === undefined) return position;
        return reader.onOffsetOutOfRange(position);
      },
      onError: (error) => this.failed(fetcher, error),
    });
    this.fetcher = fetcher;
    this.started = fetcher.start().catch((error: Error) => this.failed(fetcher, error));
    return fetcher;
  }

  /** The loop gave up: its readers hear of it, and the next read starts a new loop. */
  private failed(fetcher: PartitionFetcher, error: Error): void {
    if (this.fetcher !== fetcher) return;
    this.fetcher = undefined;
    void fetcher.stop().catch(() => {});
    const readers = [...this.readers.values()];
    this.readers.clear();
    for (const r of new Set(readers)) r.onError(error);
  }
}

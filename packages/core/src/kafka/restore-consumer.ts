// Reads changelog partitions from a start offset to an end offset, by manual assignment
// (partition-fetcher.ts): no consumer group, as Kafka Streams' restore consumer. Until 2026-12-06
// each restore joined a throw-away group of kafkajs' (kafkajs has no assign()).
import type { Kafka } from 'kafkajs';
import { topicPartitionKey } from '../processor/internals/records.ts';
import { fetchedOffset, fetchedTimestamp } from './fetch-decoding.ts';
import { PartitionFetcher } from './partition-fetcher.ts';

export interface RestoreRequest {
  topic: string;
  partition: number;
  /** First offset to read (the checkpoint, or 0). */
  startOffset: number;
  /** Offset after the last record to read: the end offset after fencing. */
  endOffset: number;
  apply(records: RestoredRecord[], batchEndOffset: number): Promise<void>;
}

/** A changelog record read; `headers` only when it has some (a headers-aware store keeps them). */
export interface RestoredRecord {
  key: Buffer | null;
  value: Buffer | null;
  timestamp: number;
  headers?: { readonly [name: string]: unknown };
}

export interface RestoreOptions {
  readCommitted: boolean;
  /** Restores longer than this fail rather than hang (the changelog may be unreadable). */
  timeoutMs: number;
}

/** As kafkajs' consumer defaults, which restore used until 2026-12-06. */
const MAX_BYTES = 10 * 1024 * 1024;
const MAX_BYTES_PER_PARTITION = 1024 * 1024;

export async function restoreChangelogs(
  kafka: Kafka,
  options: RestoreOptions,
  requests: RestoreRequest[],
): Promise<void> {
  const todo = new Map(
    requests
      .filter((r) => r.startOffset < r.endOffset)
      .map((r) => [topicPartitionKey(r.topic, r.partition), r]),
  );
  if (todo.size === 0) return;
  const total = todo.size;
  let finish!: () => void;
  let fail!: (e: Error) => void;
  const done = new Promise<void>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  // A partition read to its end offset is fetched no more.
  const reached = (topic: string, partition: number, next: number) => {
    const k = topicPartitionKey(topic, partition);
    const r = todo.get(k);
    if (r === undefined || next < r.endOffset) return;
    todo.delete(k);
    void fetcher.unassign([{ topic, partition }]);
    if (todo.size === 0) finish();
  };
  const fetcher: PartitionFetcher = new PartitionFetcher({
    kafka,
    readCommitted: options.readCommitted,
    maxWaitMs: 100,
    maxBytes: MAX_BYTES,
    maxBytesPerPartition: MAX_BYTES_PER_PARTITION,
    onBatch: async (batch) => {
      const r = todo.get(topicPartitionKey(batch.topic, batch.partition));
      if (r === undefined) return;
      const records: RestoredRecord[] = [];
      let last = -1;
      for (const m of batch.messages) {
        const offset = fetchedOffset(m);
        if (offset >= r.endOffset) break;
        const record: RestoredRecord = { key: m.key, value: m.value, timestamp: fetchedTimestamp(m) };
        // A for-in rather than Object.keys: no array per record for the usual empty headers.
        for (const _ in m.headers) {
          record.headers = m.headers;
          break;
        }
        records.push(record);
        last = offset;
      }
      if (records.length > 0) await r.apply(records, last + 1);
      batch.resolveOffset(batch.lastOffset);
      reached(batch.topic, batch.partition, batch.lastOffset + 1);
    },
    // A range of transaction markers or aborted records only: no batch, the position moved.
    onControlRecords: (topic, partition, _first, last) => reached(topic, partition, last + 1),
    onOffsetOutOfRange: async ({ topic, partition }, position) => {
      throw new Error(
        `restore of changelog ${topic}-${partition} lost its position ${position}: the records there were deleted while it ran (retention or deleteRecords)`,
      );
    },
    onError: (error) => fail(error),
  });
  fetcher.assign(
    [...todo.values()].map((r) => ({ topic: r.topic, partition: r.partition, offset: r.startOffset })),
  );
  const timer = setTimeout(
    () =>
      fail(new Error(`restore of ${total} changelog partitions did not finish in ${options.timeoutMs} ms`)),
    options.timeoutMs,
  );
  try {
    await fetcher.start();
    await done;
  } finally {
    clearTimeout(timer);
    await fetcher.stop();
  }
}

// Reads changelog partitions from a start offset to an end offset, by manual assignment
// (changelog-reader.ts): no consumer group, as Kafka Streams' restore consumer. Until 2026-12-06
// each restore joined a throw-away group of kafkajs' (kafkajs has no assign()), then had a fetch
// loop of its own; the runtime now passes its thread's long-lived reader, shared with standbys.
import type { Kafka } from 'kafkajs';
import { topicPartitionKey } from '../processor/internals/records.ts';
import { ChangelogReader } from './changelog-reader.ts';
import { fetchedOffset, fetchedTimestamp } from './fetch-decoding.ts';

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

/** A fetched changelog message as restore and standbys apply it: headers only when it has some. */
export function restoredRecord(m: {
  key: Buffer | null;
  value: Buffer | null;
  timestamp: string;
  headers?: RestoredRecord['headers'];
}): RestoredRecord {
  const record: RestoredRecord = { key: m.key, value: m.value, timestamp: fetchedTimestamp(m) };
  // A for-in rather than Object.keys: no array per record for the usual empty headers.
  for (const _ in m.headers) {
    record.headers = m.headers;
    break;
  }
  return record;
}

export interface RestoreOptions {
  readCommitted: boolean;
  /** Restores longer than this fail rather than hang (the changelog may be unreadable). */
  timeoutMs: number;
}

/**
 * `source`: the instance's long-lived changelog reader (changelog-reader.ts), or a client to read
 * through a reader of this restore's own (tests, tools).
 */
export async function restoreChangelogs(
  source: Kafka | ChangelogReader,
  options: RestoreOptions,
  requests: RestoreRequest[],
): Promise<void> {
  const todo = new Map(
    requests
      .filter((r) => r.startOffset < r.endOffset)
      .map((r) => [topicPartitionKey(r.topic, r.partition), r]),
  );
  if (todo.size === 0) return;
  const own =
    source instanceof ChangelogReader ? undefined : new ChangelogReader({ kafka: source, ...options });
  const reader = own ?? (source as ChangelogReader);
  const total = todo.size;
  let finish!: () => void;
  let fail!: (e: Error) => void;
  const done = new Promise<void>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  // A partition read to its end offset is fetched no more.
  const reached = (r: RestoreRequest, next: number) => {
    const k = topicPartitionKey(r.topic, r.partition);
    if (todo.get(k) !== r || next < r.endOffset) return;
    todo.delete(k);
    reader.stop([r]);
    if (todo.size === 0) finish();
  };
  for (const r of todo.values())
    reader.read(r, r.startOffset, {
      onBatch: async (batch) => {
        if (todo.get(topicPartitionKey(r.topic, r.partition)) !== r) return;
        const records: RestoredRecord[] = [];
        let last = -1;
        for (const m of batch.messages) {
          const offset = fetchedOffset(m);
          if (offset >= r.endOffset) break;
          records.push(restoredRecord(m));
          last = offset;
        }
        if (records.length > 0) await r.apply(records, last + 1);
        batch.resolveOffset(batch.lastOffset);
        reached(r, batch.lastOffset + 1);
      },
      // A range of transaction markers or aborted records only: no batch, the position moved.
      onControlRecords: (last) => reached(r, last + 1),
      onOffsetOutOfRange: async (position) => {
        throw new Error(
          `restore of changelog ${r.topic}-${r.partition} lost its position ${position}: the records there were deleted while it ran (retention or deleteRecords)`,
        );
      },
      onError: (error) => fail(error),
    });
  const timer = setTimeout(
    () =>
      fail(new Error(`restore of ${total} changelog partitions did not finish in ${options.timeoutMs} ms`)),
    options.timeoutMs,
  );
  try {
    await done;
  } finally {
    clearTimeout(timer);
    // Partitions not reached (a failure, the timeout) are given up.
    reader.stop([...todo.values()]);
    await own?.close();
  }
}

// Brings new tasks' stores up to date from their changelogs: from the checkpoint (or the
// beginning) to the end offset, before the task processes anything.
import {
  fromChangelogMessage,
  type KeyValueBytesStore,
  type StateRestoreListener,
  StoreRestorer,
} from '@kstreams/state-store';
import type { Logger } from 'pino';
import type { ResolvedConfig } from '../config/streams-config.ts';
import type { StreamsAdmin, TopicPartitionOffset } from '../kafka/admin.ts';
import { type RestoreRequest, restoreChangelogs } from '../kafka/restore-consumer.ts';
import type { RestoreProgress, StreamsMetricsRecorder } from '../metrics/streams-metrics-recorder.ts';
import type { StreamsMetrics } from './metrics.ts';
import type { TaskRuntime } from './task-runtime.ts';

/** What a restore needs; the stream thread's deps have it, without restore depending on the thread. */
export interface RestoreDeps {
  kafka: Parameters<typeof restoreChangelogs>[0];
  admin: StreamsAdmin;
  config: Pick<ResolvedConfig, 'applicationId' | 'exactlyOnce'>;
  logger: Logger;
  metrics: StreamsMetrics;
  recorder: StreamsMetricsRecorder;
  restoreListener?: StateRestoreListener | undefined;
}

export async function restoreTasks(deps: RestoreDeps, runtimes: TaskRuntime[]): Promise<void> {
  const wanted = runtimes.flatMap((rt) => rt.task.changelogPartitions.map((cp) => ({ rt, cp })));
  if (wanted.length === 0) return;
  const changelogTopics = [...new Set(wanted.map((w) => w.cp.topic))];
  const [ends, logStarts] = await Promise.all([
    deps.admin.endOffsets(changelogTopics),
    deps.admin.startOffsets(changelogTopics),
  ]);
  const requests: RestoreRequest[] = [];
  const restorers: StoreRestorer[] = [];
  const progresses: RestoreProgress[] = [];
  for (const { rt, cp } of wanted) {
    const at = (list: TopicPartitionOffset[]) =>
      list.find((e) => e.topic === cp.topic && e.partition === cp.partition)?.offset ?? 0;
    const end = at(ends);
    const checkpoint = rt.checkpoint.find(
      (c) => c.topic === cp.topic && c.partition === cp.partition,
    )?.offset;
    const stale = staleCheckpoint(checkpoint, at(logStarts), end);
    let start = checkpoint ?? 0;
    if (stale !== undefined) {
      deps.logger.warn(
        {
          taskId: rt.id,
          store: cp.storeName,
          changelog: cp.topic,
          partition: cp.partition,
          checkpoint,
          logStart: at(logStarts),
          end,
        },
        stale.reason,
      );
      await wipeStore(rt.task.storeFor(cp.storeName));
      start = stale.restoreFrom;
    }
    const restorer = new StoreRestorer(
      rt.task.storeFor(cp.storeName),
      { topic: cp.topic, partition: cp.partition },
      deps.restoreListener,
    );
    const convert = rt.task.restoreConverter(cp.storeName);
    restorer.start(start, end);
    const progress = deps.recorder.restoreStarted({
      taskId: rt.id,
      storeName: cp.storeName,
      topic: cp.topic,
      partition: cp.partition,
      startOffset: start,
      endOffset: end,
    });
    progresses.push(progress);
    restorers.push(restorer);
    requests.push({
      topic: cp.topic,
      partition: cp.partition,
      startOffset: start,
      endOffset: end,
      apply: async (records, batchEnd) => {
        await restorer.restoreBatch(
          records.map((r) => fromChangelogMessage(convert(r))),
          batchEnd,
        );
        deps.metrics.restoredRecords += records.length;
        deps.recorder.restoredBatch(progress, records.length, batchEnd);
      },
    });
  }
  await restoreChangelogs(
    deps.kafka,
    { readCommitted: deps.config.exactlyOnce, timeoutMs: 10 * 60_000 },
    requests,
  );
  for (const r of restorers) r.end();
  for (const p of progresses) deps.recorder.restoreEnded(p);
}

/**
 * A checkpoint the store cannot resume from, and where to restore instead (the store is wiped):
 * past the changelog's end (the topic was recreated), or below its log start (KIP-1259's stale
 * state: records after the checkpoint were deleted by retention or deleteRecords while the
 * instance was away, so replaying what is left over the old store would mix two states; Kafka
 * Streams wipes the task's state then, as on TaskCorruptedException).
 */
export function staleCheckpoint(
  checkpoint: number | undefined,
  logStart: number,
  end: number,
): { reason: string; restoreFrom: number } | undefined {
  if (checkpoint === undefined) return undefined;
  if (checkpoint > end)
    return {
      reason:
        'checkpoint is past the changelog end (was the changelog topic recreated?); wiping the store and restoring from the beginning',
      restoreFrom: 0,
    };
  if (checkpoint < logStart)
    return {
      reason:
        "checkpoint is below the changelog's log start (records after it were deleted while this instance was away); wiping the store and restoring from the log start",
      restoreFrom: logStart,
    };
  return undefined;
}

/** Deletes every entry, a chunk at a time (a fresh iterator per chunk: no store deletes under one). */
export async function wipeStore(store: KeyValueBytesStore, chunk = 10_000): Promise<number> {
  let deleted = 0;
  for (;;) {
    const keys: Buffer[] = [];
    const entries = store.all();
    for await (const { key } of entries) {
      keys.push(key);
      if (keys.length === chunk) break;
    }
    if (keys.length === 0) return deleted;
    await store.writeBatch(keys.map((key) => ({ key, value: null })));
    deleted += keys.length;
  }
}

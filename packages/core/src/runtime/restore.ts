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
import type { ChangelogReader } from '../kafka/changelog-reader.ts';
import { type RestoreRequest, restoreChangelogs } from '../kafka/restore-consumer.ts';
import type { RestoreProgress, StreamsMetricsRecorder } from '../metrics/streams-metrics-recorder.ts';
import type { ChangelogMessage } from '../processor/internals/processor-state-manager.ts';
import type { StreamsMetrics } from './metrics.ts';
import type { TaskFactory } from './task-creation.ts';
import { TaskRuntime } from './task-runtime.ts';

/** What a restore needs; the stream thread's deps have it, without restore depending on the thread. */
export interface RestoreDeps {
  kafka: Parameters<typeof restoreChangelogs>[0];
  /** The thread's long-lived changelog reader; without it the restore reads through one of its own. */
  reader?: ChangelogReader | undefined;
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
    const { start, stale, checkpoint } = restoreStart(rt.checkpoint, cp, at(logStarts), end);
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
        stale,
      );
      await wipeStore(rt.task.storeFor(cp.storeName));
    }
    const restorer = new StoreRestorer(
      rt.task.storeFor(cp.storeName),
      { topic: cp.topic, partition: cp.partition },
      deps.restoreListener,
    );
    const convert = rt.task.restoreConverter(cp.storeName);
    const prepare = rt.task.restorePreparer(cp.storeName);
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
        if (prepare !== undefined) await prepare(records);
        await applyChangelogRecords(restorer, convert, records, batchEnd);
        deps.metrics.restoredRecords += records.length;
        deps.recorder.restoredBatch(progress, records.length, batchEnd);
      },
    });
  }
  await restoreChangelogs(
    deps.reader ?? deps.kafka,
    { readCommitted: deps.config.exactlyOnce, timeoutMs: 10 * 60_000 },
    requests,
  );
  for (const r of restorers) r.end();
  for (const p of progresses) deps.recorder.restoreEnded(p);
}

/**
 * Where a store's changelog partition is read from: its checkpoint, or the beginning; `stale` (a
 * reason to log) when the checkpoint cannot be resumed from and the store must be wiped first.
 * The active restore and a standby start alike, so a promoted standby's checkpoint is where its
 * active's restore starts.
 */
export function restoreStart(
  checkpoints: readonly TopicPartitionOffset[],
  changelog: { topic: string; partition: number },
  logStart: number,
  end: number,
): { start: number; checkpoint: number | undefined; stale?: string } {
  const checkpoint = checkpoints.find(
    (c) => c.topic === changelog.topic && c.partition === changelog.partition,
  )?.offset;
  const stale = staleCheckpoint(checkpoint, logStart, end);
  if (stale === undefined) return { start: checkpoint ?? 0, checkpoint };
  return { start: stale.restoreFrom, checkpoint, stale: stale.reason };
}

/**
 * Applies changelog records read from Kafka to a store, as one batch: the store's converter (a
 * timestamped store puts the record's timestamp back in front of the value), then one atomic write.
 * `batchEnd`: the position after the batch (past any transaction markers).
 */
export async function applyChangelogRecords(
  restorer: StoreRestorer,
  convert: (message: ChangelogMessage) => ChangelogMessage,
  records: readonly ChangelogMessage[],
  batchEnd: number,
): Promise<void> {
  await restorer.restoreBatch(
    records.map((r) => fromChangelogMessage(convert(r))),
    batchEnd,
  );
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

/** The task manager's own tasks: task-runtime.ts' active tasks, restored through the thread's reader. */
export function runtimeTaskFactory(deps: RestoreDeps): TaskFactory<TaskRuntime> {
  return {
    create: (id, taskDeps) => new TaskRuntime(id, taskDeps),
    restore: (tasks) => restoreTasks(deps, tasks),
    isStateless: (task) => task.task.changelogPartitions.length === 0,
  };
}

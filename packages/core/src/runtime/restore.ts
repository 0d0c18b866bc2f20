// Brings new tasks' stores up to date from their changelogs: from the checkpoint (or the
// beginning) to the end offset, before the task processes anything.
import { fromChangelogMessage, type StateRestoreListener, StoreRestorer } from '@kstreams/state-store';
import type { Logger } from 'pino';
import type { ResolvedConfig } from '../config/streams-config.ts';
import type { StreamsAdmin } from '../kafka/admin.ts';
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
  const ends = await deps.admin.endOffsets([...new Set(wanted.map((w) => w.cp.topic))]);
  const requests: RestoreRequest[] = [];
  const restorers: StoreRestorer[] = [];
  const progresses: RestoreProgress[] = [];
  for (const { rt, cp } of wanted) {
    const end = ends.find((e) => e.topic === cp.topic && e.partition === cp.partition)?.offset ?? 0;
    let start = rt.checkpoint.find((c) => c.topic === cp.topic && c.partition === cp.partition)?.offset ?? 0;
    if (start > end) {
      deps.logger.warn(
        { taskId: rt.id, changelog: cp.topic, partition: cp.partition, checkpoint: start, end },
        'checkpoint is past the changelog end (was the changelog topic recreated?); restoring from the beginning',
      );
      start = 0;
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
    deps.admin,
    {
      groupIdPrefix: deps.config.applicationId,
      readCommitted: deps.config.exactlyOnce,
      timeoutMs: 10 * 60_000,
    },
    requests,
  );
  for (const r of restorers) r.end();
  for (const p of progresses) deps.recorder.restoreEnded(p);
}

// Kafka Streams' ThreadMetadata / TaskMetadata for this instance, with what an operator asks of a
// task besides: its state, lag, last commit, rollbacks and restores in progress.
import type { StreamsAdmin, TopicPartitionOffset } from '../kafka/admin.ts';
import type { RestoreProgress, StreamsMetricsRecorder } from '../metrics/streams-metrics-recorder.ts';
import { topicPartitionKey } from '../processor/internals/records.ts';
import type { StreamThread } from './stream-thread.ts';

export interface TaskPartitionMetadata {
  topic: string;
  partition: number;
  /** Next offset to process. */
  position: number | null;
  committedOffset: number | null;
  /** The log end offset from the last fetch. */
  endOffset: number | null;
  /** endOffset - position (null until both are known). */
  lag: number | null;
}

export interface TaskMetadata {
  taskId: string;
  /** RUNNING, or RESTORING while its stores are created and restored. */
  state: 'RUNNING' | 'RESTORING';
  /** Empty while restoring (the offsets are read when the task starts). */
  topicPartitions: TaskPartitionMetadata[];
  processRate: number;
  processTotal: number;
  rollbacksTotal: number;
  droppedRecordsTotal: number;
  /** ms since the epoch; null before the first commit on this instance. */
  lastCommitMs: number | null;
  restores: RestoreProgress[];
}

export interface ThreadMetadata {
  threadName: string;
  threadState: string;
  processRate: number;
  commitRate: number;
  /** ms since the epoch of the thread's last commit; null before the first. */
  lastCommitMs: number | null;
  activeTasks: TaskMetadata[];
  /**
   * Standby tasks (issue 37): their `topicPartitions` are the changelog partitions they follow,
   * `position` the next changelog offset to apply and `lag` how far behind the changelog end.
   */
  standbyTasks: TaskMetadata[];
}

/** What the metadata shows of a standby task (runtime/standby-task.ts). */
export interface StandbyMetadataSource {
  readonly id: string;
  changelogOffsets(): TopicPartitionOffset[];
}

export function localThreadMetadata(src: {
  threadName: string;
  state: string;
  thread: StreamThread | undefined;
  recorder: StreamsMetricsRecorder;
  /** The thread's standby tasks; the changelog reader's fetches feed the recorder's high watermarks. */
  standbys?: readonly StandbyMetadataSource[];
}): ThreadMetadata {
  const { thread, recorder } = src;
  const running = new Map((thread?.runningTasks() ?? []).map((rt) => [rt.id, rt]));
  const ids = [...new Set([...(thread?.assignedTaskIds() ?? []), ...running.keys()])].sort();
  const activeTasks = ids.map((taskId): TaskMetadata => {
    const rt = running.get(taskId);
    const values = recorder.task(taskId);
    const restores = [...recorder.restores.values()].filter((r) => r.taskId === taskId);
    const partitions: TaskPartitionMetadata[] = (rt?.inputPartitions ?? []).map((p) => {
      const key = topicPartitionKey(p.topic, p.partition);
      const position = rt!.processedPosition(p.topic, p.partition);
      const endOffset = recorder.highWatermark(p.topic, p.partition) ?? null;
      return {
        ...p,
        position: position < 0 ? null : position,
        committedOffset: rt!.committedOffset(key) ?? null,
        endOffset,
        lag: endOffset === null || position < 0 ? null : Math.max(0, endOffset - position),
      };
    });
    return {
      taskId,
      state: rt ? 'RUNNING' : 'RESTORING',
      topicPartitions: partitions,
      processRate: values.process.rate(),
      processTotal: values.process.total,
      rollbacksTotal: values.rollbacksTotal,
      droppedRecordsTotal: values.droppedRecordsTotal,
      lastCommitMs: values.lastCommitMs === 0 ? null : values.lastCommitMs,
      restores,
    };
  });
  return {
    threadName: src.threadName,
    threadState: src.state,
    processRate: recorder.process.rate(),
    commitRate: recorder.commit.rate(),
    lastCommitMs: recorder.lastCommitMs === 0 ? null : recorder.lastCommitMs,
    activeTasks,
    standbyTasks: (src.standbys ?? []).map((s) => standbyTaskMetadata(s, recorder)),
  };
}

export function standbyTaskMetadata(
  standby: StandbyMetadataSource,
  recorder: StreamsMetricsRecorder,
): TaskMetadata {
  return {
    taskId: standby.id,
    state: 'RUNNING',
    topicPartitions: standby.changelogOffsets().map(({ topic, partition, offset }) => {
      const endOffset = recorder.highWatermark(topic, partition) ?? null;
      return {
        topic,
        partition,
        position: offset,
        committedOffset: null,
        endOffset,
        lag: endOffset === null ? null : Math.max(0, endOffset - offset),
      };
    }),
    processRate: 0,
    processTotal: 0,
    rollbacksTotal: 0,
    droppedRecordsTotal: 0,
    // A standby commits nothing (its checkpoints are not commits).
    lastCommitMs: null,
    restores: [],
  };
}

/** Kafka Streams' StreamsMetadata: an instance's `applicationServer` and its input partitions. */
export interface StreamsMetadata {
  host: string | undefined;
  topicPartitions: Array<{ topic: string; partition: number }>;
}

/** Every live member of the app's group (Kafka Streams' metadataForAllStreamsClients). */
export async function allStreamsClients(
  admin: StreamsAdmin,
  applicationId: string,
): Promise<StreamsMetadata[]> {
  const members = await admin.groupMembers(applicationId);
  return members.map((m) => ({
    host: m.applicationServer,
    topicPartitions: Object.entries(m.assignment).flatMap(([topic, ps]) =>
      ps.map((partition) => ({ topic, partition })),
    ),
  }));
}

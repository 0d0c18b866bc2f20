// What the stream thread and its task manager are given, and what the group member tells them of
// an assignment (split out of task-manager.ts).
import type { StateRestoreListener } from '@kstreams/state-store';
import type { Logger } from 'pino';
import type { ResolvedConfig } from '../config/streams-config.ts';
import type { StreamsAdmin } from '../kafka/admin.ts';
import type { Kafka } from '../kafka/client.ts';
import type { StreamsMetricsRecorder } from '../metrics/streams-metrics-recorder.ts';
import type { Topology } from '../processor/topology.ts';
import type { StateStore } from '../state/state-store.ts';
import type { StreamsMetrics } from './metrics.ts';

export interface StreamThreadDeps {
  config: ResolvedConfig;
  topology: Topology;
  kafka: Kafka;
  admin: StreamsAdmin;
  logger: Logger;
  metrics: StreamsMetrics;
  /** The Prometheus metrics' recordings (metrics/). */
  recorder: StreamsMetricsRecorder;
  restoreListener?: StateRestoreListener;
  /** The global stores, kept by the global stream thread (GlobalKTables). */
  globalStore?: (storeName: string) => StateStore | undefined;
  /** All assigned tasks are running (true) or some are being created or restored (false). */
  onRunningChange(running: boolean): void;
  /** An error the thread cannot recover from by itself; the app's handler decides. */
  onFatal(error: Error): void;
  /** Another instance's SHUTDOWN_APPLICATION reached this one through the group. */
  onShutdownRequested?(): void;
}

/** Partitions as the group member tells them (membership/consumer-protocol.ts' TopicPartitions). */
export interface GroupPartitions {
  topic: string;
  partitions: number[];
}

/** Java's ConsumerGroupMetadata: the generation a member's commits are made in. */
export interface GroupMetadata {
  memberId: string;
  generationId: number;
  groupInstanceId: string | null;
}

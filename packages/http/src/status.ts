// The /status document: this instance, its tasks with their partitions and state, lag, last
// commit, rollbacks and restores, and the topology as Mermaid for the status page.
import type { KafkaStreams, ThreadMetadata } from '@kstreams/core';

export interface InstanceStatus {
  applicationId: string;
  /** `host:port` of interactive queries, if configured. */
  applicationServer: string | null;
  state: string;
  error: string | null;
  processingGuarantee: string;
  /** Sum of every running task's input lag. */
  totalLag: number;
  threads: ThreadMetadata[];
  topology: string;
}

export function instanceStatus(app: KafkaStreams): InstanceStatus {
  const threads = app.metadataForLocalThreads();
  const totalLag = threads
    .flatMap((t) => t.activeTasks)
    .flatMap((t) => t.topicPartitions)
    .reduce((n, p) => n + (p.lag ?? 0), 0);
  return {
    applicationId: app.config.applicationId,
    applicationServer: app.config.applicationServer ?? null,
    state: app.state,
    error: app.error?.message ?? null,
    processingGuarantee: app.config.processingGuarantee,
    totalLag,
    threads,
    topology: app.topology.describe().toMermaid(),
  };
}

// The /status document: this instance, whether it reaches Kafka (the outage going on or the last
// one), its tasks with their partitions and state, lag, last commit, rollbacks and restores, and
// the topology as Mermaid for the status page. Standby tasks are in each thread's `standbyTasks`.
import type { KafkaStreams, ThreadMetadata } from '@kstreams/core';
import { type BrokerHealth, brokerHealth } from './health.ts';

export interface InstanceStatus {
  applicationId: string;
  /** `host:port` of interactive queries, if configured. */
  applicationServer: string | null;
  state: string;
  error: string | null;
  /** Whether the app reaches Kafka: the outage going on, or the last one. */
  broker: BrokerHealth;
  processingGuarantee: string;
  /** Sum of every running task's input lag. */
  totalLag: number;
  /** Sum of every standby task's changelog lag (how far its stores are behind the changelogs). */
  standbyLag: number;
  threads: ThreadMetadata[];
  topology: string;
}

export function instanceStatus(app: KafkaStreams): InstanceStatus {
  const threads = app.metadataForLocalThreads();
  const lagOf = (tasks: ThreadMetadata['activeTasks']) =>
    tasks.flatMap((t) => t.topicPartitions).reduce((n, p) => n + (p.lag ?? 0), 0);
  return {
    applicationId: app.config.applicationId,
    applicationServer: app.config.applicationServer ?? null,
    state: app.state,
    error: app.error?.message ?? null,
    broker: brokerHealth(app.brokerConnectivity()),
    processingGuarantee: app.config.processingGuarantee,
    totalLag: lagOf(threads.flatMap((t) => t.activeTasks)),
    standbyLag: lagOf(threads.flatMap((t) => t.standbyTasks)),
    threads,
    topology: app.topology.describe().toMermaid(),
  };
}

// kafkajs' cluster (bootstrap, metadata, connections with TLS/SASL, the ApiVersions handshake) as
// kstreams' own clients use it: the group member's line to its coordinator and the partition
// fetcher. kafkajs keeps its cluster factory behind a symbol on the client (its consumer, producer
// and admin each get one the same way); these types name the part of it core relies on.
import type { Kafka } from 'kafkajs';

export interface KafkajsBroker {
  nodeId: number;
  brokerAddress: string;
  versions: Record<number, { minVersion: number; maxVersion: number } | undefined>;
  connectionPool: { send(request: unknown): Promise<unknown> };
}

export interface KafkajsPartitionMetadata {
  partitionId: number;
  leader: number | null;
  partitionErrorCode: number;
}

export interface KafkajsCluster {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  findGroupCoordinator(args: { groupId: string }): Promise<KafkajsBroker>;
  findBroker(args: { nodeId: number }): Promise<KafkajsBroker>;
  addMultipleTargetTopics(topics: string[]): Promise<void>;
  refreshMetadata(): Promise<void>;
  findTopicPartitionMetadata(topic: string): KafkajsPartitionMetadata[];
}

/** A new kafkajs cluster with the client's settings (brokers, TLS, SASL, timeouts, logger). */
export function createCluster(kafka: Kafka): KafkajsCluster {
  const owner = kafka as unknown as Record<symbol, (options: object) => KafkajsCluster>;
  const key = Object.getOwnPropertySymbols(kafka).find(
    (s) => s.description === 'private:Kafka:createCluster',
  );
  if (key === undefined) throw new Error('kafkajs changed: its client has no cluster factory');
  return owner[key]!({ allowAutoTopicCreation: false });
}

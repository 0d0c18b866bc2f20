// A member's line to its group coordinator: kafkajs' cluster (bootstrap, metadata, TLS/SASL, the
// ApiVersions handshake, FindCoordinator with its retries; ../kafkajs-cluster.ts) and the
// coordinator broker's connection, on which group-requests.ts' requests go. Each member has a
// cluster of its own: a broker answers a connection's requests one at a time, and a JoinGroup
// waits there until every member has joined, so two members of one group on a shared connection
// would wait for each other.
import type { Kafka } from 'kafkajs';
import { noteBrokerAnswer, noteBrokerFailure } from '../broker-connectivity.ts';
import { createCluster, type KafkajsBroker, type KafkajsCluster } from '../kafkajs-cluster.ts';
import { brokerTooOldError } from './group-errors.ts';
import { API, type GroupApi, groupRequest } from './group-requests.ts';

export type Body<A extends GroupApi> = Parameters<typeof groupRequest<A>>[2];
export type Response<A extends GroupApi> = Awaited<
  ReturnType<ReturnType<typeof groupRequest<A>>['response']['decode']>
>;

/** What a member needs of its coordinator (a fake in unit tests). */
export interface CoordinatorLink {
  findCoordinator(): Promise<void>;
  send<A extends GroupApi>(api: A, body: Body<A>, requestTimeoutMs?: number): Promise<Response<A>>;
  partitionCounts(topics: string[]): Promise<Map<string, number>>;
  disconnect(): Promise<void>;
}

export class CoordinatorClient implements CoordinatorLink {
  private readonly cluster: KafkajsCluster;
  private coordinator?: KafkajsBroker;
  private connected = false;

  constructor(
    private readonly kafka: Kafka,
    private readonly groupId: string,
  ) {
    this.cluster = createCluster(kafka);
  }

  /** The coordinator's address, for messages. */
  get address(): string {
    return this.coordinator?.brokerAddress ?? 'unknown';
  }

  /** Finds the group's coordinator (again, after NOT_COORDINATOR and the like). */
  async findCoordinator(): Promise<void> {
    if (!this.connected) {
      await this.cluster.connect();
      this.connected = true;
    }
    this.coordinator = await this.cluster.findGroupCoordinator({ groupId: this.groupId });
  }

  /** The highest version of `api` both sides speak; an error naming the broker when there is none. */
  version(api: GroupApi): number {
    const broker = this.coordinator;
    if (broker === undefined) throw new Error('no group coordinator found yet');
    return negotiate(api, broker.versions[API[api].key]?.maxVersion, broker.brokerAddress);
  }

  async send<A extends GroupApi>(api: A, body: Body<A>, requestTimeoutMs?: number): Promise<Response<A>> {
    if (this.coordinator === undefined) await this.findCoordinator();
    const request = groupRequest(api, this.version(api), body);
    try {
      const response = (await this.coordinator!.connectionPool.send({
        ...request,
        requestTimeout: requestTimeoutMs,
      })) as Response<A>;
      noteBrokerAnswer(this.kafka);
      return response;
    } catch (error) {
      // Heartbeats every few seconds make this the app's steadiest sign of its broker (/health).
      noteBrokerFailure(this.kafka, error);
      throw error;
    }
  }

  /** Each topic's partition count, from fresh metadata (the leader assigns by them). */
  async partitionCounts(topics: string[]): Promise<Map<string, number>> {
    await this.cluster.addMultipleTargetTopics(topics);
    await this.cluster.refreshMetadata();
    return new Map(topics.map((t) => [t, this.cluster.findTopicPartitionMetadata(t).length]));
  }

  async disconnect(): Promise<void> {
    this.connected = false;
    this.coordinator = undefined;
    await this.cluster.disconnect();
  }
}

/** The version of `api` to send to a broker speaking it up to `brokerMax`. */
export function negotiate(api: GroupApi, brokerMax: number | undefined, broker: string): number {
  const { min, max } = API[api];
  if (brokerMax === undefined || brokerMax < min) throw brokerTooOldError(api, brokerMax, min, broker);
  return Math.min(max, brokerMax);
}

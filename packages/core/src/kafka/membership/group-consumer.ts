// The stream thread's consumer on kstreams' own group membership: a GroupMember (cooperative and
// static, KIP-429 and KIP-345) says which partitions are this instance's, a PartitionFetcher
// fetches them by manual assignment, and the runtime's rebalance listener (the task manager) is
// told of each change. Heartbeats run on the member's own timer, so a long restore or commit does
// not drop the member; only a stalled thread (no poll() for the rebalance timeout, Java's
// max.poll.interval.ms) gives its partitions up. at_least_once commits go to the coordinator in
// the member's generation (offset-commit.ts) on a connection of their own, so a JoinGroup waiting
// for the other members does not hold them up.
import type { Kafka } from 'kafkajs';
import type { ResolvedConfig } from '../../config/streams-config.ts';
import type { TopicPartitionOffset } from '../admin.ts';
import { type AssignorOptions, decodeUserData, encodeUserData } from '../assignor.ts';
import type { InputBatch } from '../consumer.ts';
import { createCluster, type KafkajsCluster } from '../kafkajs-cluster.ts';
import type { FetcherBatch, FetcherPartition, PartitionFetcherOptions } from '../partition-fetcher.ts';
import type { TopicPartitions } from './consumer-protocol.ts';
import { CoordinatorClient, type CoordinatorLink } from './coordinator.ts';
import { type GroupAssignor, GroupMember, type RebalanceListener } from './group-member.ts';
import { commitGroupOffsets } from './offset-commit.ts';
import { assignmentErrorCode, SHUTDOWN_REQUESTED, withShutdownRequests } from './shutdown-request.ts';
import { streamsAssignor } from './task-assignment.ts';

/** What the consumer needs of the fetch loop (kafka/partition-fetcher.ts' PartitionFetcher). */
export interface FetchLoop {
  assign(partitions: Array<FetcherPartition & { offset?: number }>): void;
  unassign(partitions: FetcherPartition[]): Promise<void>;
  seek(tp: FetcherPartition & { offset: number }): void;
  pause(tps: FetcherPartition[]): void;
  resume(tps: FetcherPartition[]): void;
  paused(): Array<{ topic: string; partitions: number[] }>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** What the consumer needs of the group member (a fake in unit tests). */
export type Membership = Pick<GroupMember, 'start' | 'poll' | 'close' | 'groupMetadata' | 'rejoin'>;

export interface GroupConsumerHandlers {
  onBatch(batch: InputBatch): Promise<void>;
  /** The runtime's side of each rebalance; its callbacks run one at a time. */
  listener: RebalanceListener;
  onControlRecords(topic: string, partition: number, first: number, last: number): void;
  onFetched?(topic: string, partition: number, highWatermark: number): void;
  onFetchedEnd?(topic: string, partition: number, endOffset: number, emptyAt: number | undefined): void;
  /** The position of a partition left its log: where to go (the topic's reset policy). */
  onOffsetOutOfRange(tp: FetcherPartition, position: number): Promise<number>;
  /** The fetch loop stopped for good (it retries transient failures itself). */
  onFetchError(error: Error): void;
  /** An instance of the group asked for the application's shutdown (SHUTDOWN_APPLICATION). */
  onShutdownRequested?(): void;
}

export interface GroupConsumerParts {
  /** The fetch loop (kafka/partition-fetcher.ts' PartitionFetcher in the runtime). */
  newFetcher(options: PartitionFetcherOptions): FetchLoop;
  /** Default: a GroupMember with the streams assignor. */
  newMember?(listener: RebalanceListener): Membership;
  /** Default: a coordinator connection of its own. */
  commitLink?: CoordinatorLink;
  /**
   * The leader's assignor and the member's subscription userData; default: the sticky task
   * assignor with userData v1 (kafka/assignor.ts). The runtime passes the high-availability
   * assignor with subscription info v2 when standbys are on (issue 37).
   */
  subscription?: {
    assignor: GroupAssignor;
    userData(options: { shutdownRequested: boolean }): Buffer;
  };
}

const asFetcherPartitions = (list: TopicPartitions[]): FetcherPartition[] =>
  list.flatMap(({ topic, partitions }) => partitions.map((partition) => ({ topic, partition })));

const keyOf = (tp: FetcherPartition) => `${tp.topic}\u0000${tp.partition}`;

export class GroupConsumer {
  private fetcher?: FetchLoop;
  private member?: Membership;
  private readonly commitLink: CoordinatorLink;
  /** The partitions the fetcher holds: a seek of any other (revoked meanwhile) is dropped. */
  private readonly assigned = new Set<string>();
  /** Sent in each join's userData once this instance asked for the application's shutdown. */
  private shutdownRequested = false;
  /** For the debug log of a start's phases. */
  private fetchedOnce = false;
  /** The fetcher's and the member's connections, opened ahead of start() by connect(). */
  private early?: { cluster: KafkajsCluster; link: CoordinatorClient; ready: Promise<void> };

  constructor(
    private readonly kafka: Kafka,
    private readonly config: ResolvedConfig,
    private readonly assignor: AssignorOptions,
    private readonly parts: GroupConsumerParts,
  ) {
    this.commitLink = parts.commitLink ?? new CoordinatorClient(kafka, config.applicationId);
  }

  /**
   * Opens the fetcher's connection and finds the group's coordinator, so that start() can join at
   * once: the app calls it before checking its topics, and both go on together (a restarted
   * instance's first commit comes sooner: bench/rolling-restart's kill -9 step).
   */
  connect(): Promise<void> {
    this.early ??= (() => {
      const cluster = createCluster(this.kafka);
      const link = new CoordinatorClient(this.kafka, this.config.applicationId);
      return {
        cluster,
        link,
        ready: Promise.all([cluster.connect(), link.findCoordinator()]).then(() => {}),
      };
    })();
    return this.early.ready;
  }

  async start(topics: string[], handlers: GroupConsumerHandlers): Promise<void> {
    const { config, early } = this;
    if (early !== undefined) await early.ready;
    this.fetcher = this.parts.newFetcher({
      kafka: this.kafka,
      ...(early === undefined ? {} : { cluster: early.cluster }),
      readCommitted: config.consumer.isolationLevel !== 'read_uncommitted',
      maxWaitMs: config.consumer.maxWaitTimeMs,
      // As the kafkajs consumer's (kafka/consumer.ts): a response is capped at 1 MiB, so one batch's
      // processing stays short and what waits decoded in memory is bounded.
      maxBytes: 1024 * 1024,
      maxBytesPerPartition: 256 * 1024,
      onBatch: (batch) => {
        if (!this.fetchedOnce) {
          this.fetchedOnce = true;
          config.logger.debug({ topic: batch.topic, partition: batch.partition }, 'first batch fetched');
        }
        this.member?.poll();
        handlers.onFetched?.(batch.topic, batch.partition, batch.highWatermark);
        return handlers.onBatch(this.inputBatch(batch));
      },
      onFetchedEnd: handlers.onFetchedEnd,
      onControlRecords: handlers.onControlRecords,
      onOffsetOutOfRange: handlers.onOffsetOutOfRange,
      onError: handlers.onFetchError,
    });
    const listener = this.fetchingListener(handlers.listener, handlers.onShutdownRequested);
    this.member = this.parts.newMember?.(listener) ?? this.newMember(topics, listener);
    // The fetcher's connection and the join go together: the join needs no fetcher (partitions it
    // assigns wait paused for their tasks), and a restarted static member gets its assignment
    // one connection setup sooner (bench/rolling-restart's kill -9 step).
    await Promise.all([this.fetcher.start(), this.member.start()]);
  }

  /**
   * The runtime's listener, with the fetcher following the assignment: new partitions are
   * assigned before the runtime hears of them (unfetched until its tasks seek), revoked and lost
   * ones unassigned after it closed their tasks, outside its callback: unassign waits for a batch
   * of theirs that may be waiting for the runtime.
   */
  private fetchingListener(runtime: RebalanceListener, onShutdownRequested?: () => void): RebalanceListener {
    const unassign = async (list: TopicPartitions[]) => {
      const tps = asFetcherPartitions(list);
      for (const tp of tps) this.assigned.delete(keyOf(tp));
      await this.fetcher?.unassign(tps);
    };
    return {
      onPartitionsRevoked: async (partitions) => {
        await runtime.onPartitionsRevoked(partitions);
        await unassign(partitions);
      },
      onPartitionsAssigned: async (added, assignment, generationId) => {
        const tps = asFetcherPartitions(added);
        for (const tp of tps) this.assigned.add(keyOf(tp));
        this.fetcher?.assign(tps);
        await runtime.onPartitionsAssigned(added, assignment, generationId);
        if (assignmentErrorCode(assignment.userData) === SHUTDOWN_REQUESTED) onShutdownRequested?.();
      },
      onPartitionsLost: async (partitions, cause) => {
        await runtime.onPartitionsLost(partitions, cause);
        await unassign(partitions);
      },
      onFatal: (error) => runtime.onFatal(error),
    };
  }

  private newMember(topics: string[], listener: RebalanceListener): GroupMember {
    const { config, assignor } = this;
    const custom = this.parts.subscription;
    return new GroupMember(this.early?.link ?? this.kafka, {
      groupId: config.applicationId,
      groupInstanceId: config.groupInstanceId ?? null,
      topics,
      sessionTimeoutMs: config.consumer.sessionTimeoutMs,
      rebalanceTimeoutMs: config.consumer.rebalanceTimeoutMs,
      heartbeatIntervalMs: config.consumer.heartbeatIntervalMs,
      assignor: withShutdownRequests(
        custom?.assignor ??
          streamsAssignor({
            subtopologies: assignor.subtopologies,
            previousTasks: (userData) => decodeUserData(userData).ownedTasks,
            assignmentUserData: (_memberId, tasks) => Buffer.from(JSON.stringify({ tasks })),
          }),
        (m) => decodeUserData(m.subscription.userData).shutdownRequested === true,
      ),
      listener,
      trace: (event, fields) => config.logger.debug(fields, event),
      userData: () =>
        custom?.userData({ shutdownRequested: this.shutdownRequested }) ??
        encodeUserData({
          ownedTasks: assignor.ownedTasks(),
          applicationServer: assignor.applicationServer,
          ...(this.shutdownRequested ? { shutdownRequested: true } : {}),
        }),
    });
  }

  /**
   * SHUTDOWN_APPLICATION: rejoins with the request in the subscription, so that the leader stops
   * every member (shutdown-request.ts). Resolves when the join is done or after `timeoutMs`.
   */
  async requestShutdown(timeoutMs: number): Promise<void> {
    this.shutdownRequested = true;
    const member = this.member;
    if (member === undefined) return;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
    });
    await Promise.race([member.rejoin('the application shuts down (SHUTDOWN_APPLICATION)'), timeout]);
    clearTimeout(timer);
  }

  private inputBatch(batch: FetcherBatch): InputBatch {
    return {
      topic: batch.topic,
      partition: batch.partition,
      messages: batch.messages,
      lastOffset: batch.lastOffset,
      highWatermark: batch.highWatermark,
      // onFetchedEnd told it already, in fetch order.
      endOffset: undefined,
      isStale: () => batch.isStale(),
      resolveOffset: (offset) => batch.resolveOffset(offset),
      // Heartbeats go on in the background; this is the loop's sign of life.
      heartbeat: async () => this.member?.poll(),
    };
  }

  /** Rejoins the group (KIP-441's probing rebalance); the tasks kept go on processing. */
  rejoin(reason: string): Promise<void> {
    return this.member?.rejoin(reason) ?? Promise.resolve();
  }

  /** The thread's loop is alive (Java's poll()): see GroupMember.poll. */
  poll(): void {
    this.member?.poll();
  }

  /** Java's ConsumerGroupMetadata: the generation commits are made in. */
  groupMetadata(): { generationId: number; memberId: string; groupInstanceId: string | null } {
    return this.member?.groupMetadata() ?? { generationId: -1, memberId: '', groupInstanceId: null };
  }

  pause(partitions: FetcherPartition[]): void {
    if (partitions.length > 0) this.fetcher?.pause(partitions);
  }

  resume(partitions: FetcherPartition[]): void {
    if (partitions.length > 0) this.fetcher?.resume(partitions);
  }

  paused(): Array<{ topic: string; partitions: number[] }> {
    return this.fetcher?.paused() ?? [];
  }

  /** A partition revoked meanwhile is not the fetcher's any more: its seek is dropped. */
  seek(tp: TopicPartitionOffset): void {
    if (this.assigned.has(keyOf(tp))) this.fetcher?.seek(tp);
  }

  /** at_least_once's commit, in the member's generation (a stale member's is refused). */
  async commitOffsets(offsets: TopicPartitionOffset[]): Promise<void> {
    await commitGroupOffsets(this.commitLink, this.config.applicationId, this.groupMetadata(), offsets);
  }

  /**
   * Stops heartbeating and fetching. `leaveGroup`: as KafkaStreams.close's CloseOptions (default:
   * a dynamic member leaves, a static one keeps its place for the session timeout).
   */
  async stop({ leaveGroup }: { leaveGroup?: boolean } = {}): Promise<void> {
    await this.member?.close({ leaveGroup });
    await this.fetcher?.stop();
    // Connected by connect(), never started (the app's start failed in between).
    if (this.member === undefined) await this.early?.link.disconnect().catch(() => {});
    if (this.fetcher === undefined) await this.early?.cluster.disconnect().catch(() => {});
    await this.commitLink.disconnect().catch(() => {});
  }
}

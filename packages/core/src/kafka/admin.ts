// The admin operations the runtime needs: internal topics, partition counts, committed and end
// offsets, and group members (for interactive queries).
// First: kafkajs must find core's replacements when it loads (kafkajs-patches.ts).
import './kafkajs-patches.ts';
import { type Admin, AssignerProtocol, type Kafka } from 'kafkajs';
import { AuthenticationError, BrokerUnreachableError } from '../errors.ts';
import { decodeAssignmentInfo } from './assignment-info.ts';
import { decodeUserData } from './assignor.ts';
import { hasErrorType, retryWhileErrorType } from './error-kinds.ts';
import { type NewTopicsWait, partitionCountsOfNewTopics } from './new-topics.ts';
import { fetchStableOffsets } from './stable-offset-fetch.ts';

/** How long a task's start waits, at least, for a transaction that is committing its offsets. */
export const UNSTABLE_OFFSETS_WAIT_MS = 30_000;

export interface StableOffsetsOptions {
  /** How long to wait for the transactions committing the partitions' offsets. */
  waitMs?: number;
  /**
   * Past `waitMs` the offsets are read as the coordinator has them committed, ignoring the pending
   * ones, and this is told which partitions were still unstable. Without it, the error is thrown.
   */
  onStillUnstable?: (partitions: Array<{ topic: string; partition: number }>) => void;
}

/** A live member of the app's group as describeGroups shows it (for interactive queries). */
export interface GroupMemberDescription {
  memberId: string;
  applicationServer?: string;
  /** Its input partitions by topic. */
  assignment: Record<string, number[]>;
  /** Its standby tasks (assignment info v2); absent or empty before standbys. */
  standbyTasks?: string[];
}

export interface TopicPartitionOffset {
  topic: string;
  partition: number;
  offset: number;
}

export interface InternalTopicSpec {
  topic: string;
  numPartitions: number;
  compacted: boolean;
  /** Delete records older than this (a window store's changelog), compacted or not. */
  retentionMs?: number;
  /** `min.compaction.lag.ms` (a versioned store's changelog keeps its history this long). */
  minCompactionLagMs?: number;
}

export class StreamsAdmin {
  private readonly admin: Admin;
  private connected = false;

  /** The partition counts this admin has seen or created: the app's topics, known at its start. */
  private readonly knownCounts = new Map<string, number>();

  constructor(kafka: Kafka) {
    this.admin = kafka.admin();
  }

  /** A topic's partition count as last seen (topics added later by a user are not refreshed). */
  partitionCountOf(topic: string): number | undefined {
    return this.knownCounts.get(topic);
  }

  async connect(): Promise<void> {
    if (!this.connected) await this.admin.connect();
    this.connected = true;
  }

  /** connect(), with its failure told in words: credentials refused, or no broker at `brokers`. */
  async connectOrExplain(brokers: string[], sasl: unknown): Promise<void> {
    await this.connect().catch((error: unknown) => {
      throw (
        AuthenticationError.from(error, brokers, sasl as { username?: unknown }) ??
        BrokerUnreachableError.from(error, brokers) ??
        error
      );
    });
  }

  async disconnect(): Promise<void> {
    if (this.connected) await this.admin.disconnect();
    this.connected = false;
  }

  /** The names of the cluster's topics (those the app's user may Describe). */
  async listTopics(): Promise<string[]> {
    return this.admin.listTopics();
  }

  /** Partition counts of the topics that exist; missing topics are absent from the map. */
  async partitionCounts(topics: string[]): Promise<Map<string, number>> {
    const existing = new Set(await this.admin.listTopics());
    const present = topics.filter((t) => existing.has(t));
    const counts = new Map<string, number>();
    if (present.length === 0) return counts;
    const { topics: meta } = await this.admin.fetchTopicMetadata({ topics: present });
    for (const t of meta) {
      counts.set(t.name, t.partitions.length);
      this.knownCounts.set(t.name, t.partitions.length);
    }
    return counts;
  }

  /**
   * The partition counts of topics the app needs to exist (its sources and sinks), waiting for
   * topics just created (kafka/new-topics.ts); a topic still missing is left out.
   */
  async existingPartitionCounts(topics: string[], wait?: NewTopicsWait): Promise<Map<string, number>> {
    const counts = await partitionCountsOfNewTopics(this.admin, topics, wait);
    for (const [topic, n] of counts) this.knownCounts.set(topic, n);
    return counts;
  }

  /** Creates what is missing; returns the specs whose existing topic has another partition count. */
  async ensureTopics(specs: InternalTopicSpec[], replicationFactor: number): Promise<InternalTopicSpec[]> {
    const counts = await this.partitionCounts(specs.map((s) => s.topic));
    const missing = specs.filter((s) => !counts.has(s.topic));
    if (missing.length > 0) {
      await this.admin.createTopics({
        // kafkajs' own wait fails on the UNKNOWN_TOPIC_OR_PARTITION a KRaft broker may answer
        // right after a create; waitForTopics below polls instead.
        waitForLeaders: false,
        topics: missing.map((s) => ({
          topic: s.topic,
          numPartitions: s.numPartitions,
          replicationFactor,
          configEntries: topicConfig(s),
        })),
      });
      await this.waitForTopics(missing.map((s) => s.topic));
      for (const s of missing) this.knownCounts.set(s.topic, s.numPartitions);
    }
    return specs.filter((s) => counts.has(s.topic) && counts.get(s.topic) !== s.numPartitions);
  }

  /** Waits until every partition of the topics has a leader (another instance may be creating them). */
  async waitForTopics(topics: string[], timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        const { topics: meta } = await this.admin.fetchTopicMetadata({ topics });
        if (
          meta.length === topics.length &&
          meta.every((t) => t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0))
        )
          return;
      } catch (error) {
        if (Date.now() > deadline) throw error;
      }
      if (Date.now() > deadline)
        throw new Error(`topics ${topics.join(', ')} have no leaders after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  async committedOffsets(groupId: string, topics: string[]): Promise<TopicPartitionOffset[]> {
    const res = await this.admin.fetchOffsets({ groupId, topics });
    return res.flatMap((t) =>
      t.partitions.map((p) => ({ topic: t.topic, partition: p.partition, offset: Number(p.offset) })),
    );
  }

  /**
   * The committed offsets of just these partitions, once no open transaction is committing any of
   * them (KIP-447's stable offsets): waits while one is (UNSTABLE_OFFSET_COMMIT), as Java's
   * read_committed consumer does, up to `waitMs`. -1: never committed.
   */
  async stableCommittedOffsets(
    groupId: string,
    partitions: Array<{ topic: string; partition: number }>,
    { waitMs = UNSTABLE_OFFSETS_WAIT_MS, onStillUnstable }: StableOffsetsOptions = {},
  ): Promise<TopicPartitionOffset[]> {
    const topics = [...new Set(partitions.map((p) => p.topic))];
    try {
      return await retryWhileErrorType(
        'UNSTABLE_OFFSET_COMMIT',
        () => fetchStableOffsets(partitions, () => this.committedOffsets(groupId, topics)),
        { timeoutMs: waitMs, backoffMs: 10, maxBackoffMs: 500 },
      );
    } catch (error) {
      if (onStillUnstable === undefined || !hasErrorType(error, 'UNSTABLE_OFFSET_COMMIT')) throw error;
      onStillUnstable(partitions);
      return this.committedOffsets(groupId, topics);
    }
  }

  /** The end offset (next offset to be written) of each partition of the topics. */
  endOffsets(topics: string[]): Promise<TopicPartitionOffset[]> {
    return this.topicOffsets(topics, 'high');
  }

  /** The log start offset (earliest offset still stored) of each partition of the topics. */
  startOffsets(topics: string[]): Promise<TopicPartitionOffset[]> {
    return this.topicOffsets(topics, 'low');
  }

  /**
   * Kafka's offsetsForTimes: the first offset of each partition whose timestamp is at or after
   * `timestamp`; the end offset where no record is that recent.
   */
  async offsetsForTimes(topics: string[], timestamp: number): Promise<TopicPartitionOffset[]> {
    const out: TopicPartitionOffset[] = [];
    for (const topic of topics) {
      for (const p of await this.admin.fetchTopicOffsetsByTimestamp(topic, timestamp)) {
        out.push({ topic, partition: p.partition, offset: Number(p.offset) });
      }
    }
    return out;
  }

  private async topicOffsets(topics: string[], which: 'low' | 'high'): Promise<TopicPartitionOffset[]> {
    const out: TopicPartitionOffset[] = [];
    for (const topic of topics) {
      for (const p of await this.admin.fetchTopicOffsets(topic)) {
        out.push({ topic, partition: p.partition, offset: Number(p[which]) });
      }
    }
    return out;
  }

  async deleteGroup(groupId: string): Promise<void> {
    await this.admin.deleteGroups([groupId]).catch(() => {});
  }

  /** Each live member's application server and the partitions it was assigned. */
  async groupMembers(groupId: string): Promise<GroupMemberDescription[]> {
    const { groups } = await this.admin.describeGroups([groupId]);
    const group = groups[0];
    if (!group) return [];
    return group.members.map((m) => {
      const meta =
        m.memberMetadata.length > 0 ? AssignerProtocol.MemberMetadata.decode(m.memberMetadata) : null;
      const assignment =
        m.memberAssignment.length > 0 ? AssignerProtocol.MemberAssignment.decode(m.memberAssignment) : null;
      return {
        memberId: m.memberId,
        applicationServer: decodeUserData(meta?.userData).applicationServer,
        assignment: assignment?.assignment ?? {},
        standbyTasks: standbyTasksOf(assignment?.userData),
      };
    });
  }
}

/** A member's standby tasks from its assignment info v2; none from another assignor's userData. */
function standbyTasksOf(userData: Buffer | null | undefined): string[] {
  try {
    return decodeAssignmentInfo(userData).standbyTasks;
  } catch {
    return [];
  }
}

function topicConfig(spec: InternalTopicSpec): Array<{ name: string; value: string }> {
  if (!spec.compacted) {
    const retention =
      spec.retentionMs === undefined ? [] : [{ name: 'retention.ms', value: String(spec.retentionMs) }];
    return [{ name: 'cleanup.policy', value: 'delete' }, ...retention];
  }
  if (spec.minCompactionLagMs !== undefined) {
    return [
      { name: 'cleanup.policy', value: 'compact' },
      { name: 'min.compaction.lag.ms', value: String(spec.minCompactionLagMs) },
    ];
  }
  if (spec.retentionMs === undefined) return [{ name: 'cleanup.policy', value: 'compact' }];
  return [
    { name: 'cleanup.policy', value: 'compact,delete' },
    { name: 'retention.ms', value: String(spec.retentionMs) },
  ];
}

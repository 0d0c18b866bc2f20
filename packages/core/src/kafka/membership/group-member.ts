// A member of a classic consumer group that kstreams runs itself (kafkajs' consumer knows neither
// static membership nor cooperative rebalancing): JoinGroup, SyncGroup, Heartbeat and LeaveGroup,
// with the consumer protocol's bytes so that Java's tools read the group. Cooperative (KIP-429): an
// assignment revokes only what the member no longer gets, the rest keeps running, and a member
// that revoked something rejoins at once for the follow-up rebalance. Static (KIP-345): with a
// groupInstanceId a restarted member gets its partitions back without a rebalance, and close()
// leaves the group only when asked (Kafka Streams' CloseOptions.leaveGroup).
import type { Kafka } from 'kafkajs';
import { isRetriableError } from '../error-kinds.ts';
import {
  type Assignment,
  decodeAssignment,
  decodeSubscription,
  encodeAssignment,
  encodeSubscription,
  type Subscription,
  type TopicPartitions,
} from './consumer-protocol.ts';
import { assignmentChange } from './cooperative.ts';
import { CoordinatorClient, type CoordinatorLink } from './coordinator.ts';
import {
  CODES,
  COORDINATOR_MOVED,
  fencedInstanceError,
  GroupMembershipError,
  groupError,
  removedFromGroupError,
} from './group-errors.ts';

export interface JoinedMember {
  memberId: string;
  groupInstanceId: string | null;
  subscription: Subscription;
}

/** The leader's assignment: member id -> its assignment (the consumer protocol's). */
export interface GroupAssignor {
  /** The protocol name members agree on (Kafka Streams: "stream"). */
  name: string;
  assign(
    members: JoinedMember[],
    partitionCount: (topic: string) => number,
  ): Map<string, Assignment> | Promise<Map<string, Assignment>>;
}

/** What the runtime does on the member's news (Java's ConsumerRebalanceListener). */
export interface RebalanceListener {
  /** Close these (commit first): another member gets them. The member rejoins afterwards. */
  onPartitionsRevoked(partitions: TopicPartitions[]): Promise<void>;
  /** Open these; `assignment` is the whole assignment with the leader's userData. */
  onPartitionsAssigned(added: TopicPartitions[], assignment: Assignment, generationId: number): Promise<void>;
  /** These may be another member's already (removed from the group): close without committing. */
  onPartitionsLost(partitions: TopicPartitions[], cause: Error): Promise<void>;
  /** The member cannot go on (fenced, broker too old, refused): the runtime stops. */
  onFatal(error: Error): void;
}

export interface GroupMemberOptions {
  groupId: string;
  /** KIP-345's group.instance.id; null: a dynamic member. */
  groupInstanceId: string | null;
  topics: string[];
  sessionTimeoutMs: number;
  /** How long the coordinator waits for members to rejoin; Java uses max.poll.interval.ms. */
  rebalanceTimeoutMs: number;
  heartbeatIntervalMs: number;
  assignor: GroupAssignor;
  listener: RebalanceListener;
  /** The runtime's userData for each join (Kafka Streams' SubscriptionInfo); opaque here. */
  userData?: () => Buffer | null;
  rackId?: string | null;
  /** Each round trip's answer, for the runtime's debug log (how long a start spends joining). */
  trace?(event: string, fields: Record<string, unknown>): void;
}

type State = 'unjoined' | 'joining' | 'stable' | 'closed';

const RETRY_BACKOFF_MS = 100;
const MAX_RETRY_BACKOFF_MS = 1_000;

export class GroupMember {
  private readonly client: CoordinatorLink;
  private state: State = 'unjoined';
  private memberId = '';
  private generationId = -1;
  private owned: TopicPartitions[] = [];
  private assignment: Assignment = { partitions: [], userData: null };
  private heartbeatTimer?: NodeJS.Timeout;
  private joining?: Promise<void>;
  private rejoinReason: string | null = null;
  private lastPoll = Date.now();
  private leaderOf = false;
  private fatal?: Error;

  /** `connection`: the app's kafkajs client (the member opens connections of its own from it). */
  constructor(
    connection: Kafka | CoordinatorLink,
    private readonly options: GroupMemberOptions,
  ) {
    this.client =
      'findCoordinator' in connection ? connection : new CoordinatorClient(connection, options.groupId);
  }

  get id(): string {
    return this.memberId;
  }
  get generation(): number {
    return this.generationId;
  }
  get isLeader(): boolean {
    return this.leaderOf;
  }
  get ownedPartitions(): TopicPartitions[] {
    return this.owned;
  }
  get currentAssignment(): Assignment {
    return this.assignment;
  }
  /** Java's ConsumerGroupMetadata, for KIP-447's transactional offset commits. */
  groupMetadata(): { generationId: number; memberId: string; groupInstanceId: string | null } {
    return {
      generationId: this.generationId,
      memberId: this.memberId,
      groupInstanceId: this.options.groupInstanceId,
    };
  }

  /**
   * Joins the group; resolves once the member has its first assignment, rejects with the error
   * that stopped it (also told to onFatal) if it could not join.
   */
  async start(): Promise<void> {
    if (this.state !== 'unjoined') throw new Error('the group member has started already');
    await this.client.findCoordinator();
    this.options.trace?.('group coordinator found', {});
    await this.rejoin('initial join');
    if (this.fatal !== undefined) throw this.fatal;
  }

  /**
   * The runtime's sign of life, once per loop: Java's poll(). A member whose loop stalls past the
   * rebalance timeout would hold up every rebalance; see heartbeat().
   */
  poll(): void {
    this.lastPoll = Date.now();
  }

  /** Rejoins now (e.g. the topology's topics changed); processing of owned partitions goes on. */
  rejoin(reason: string): Promise<void> {
    this.rejoinReason ??= reason;
    this.joining ??= this.joinLoop().finally(() => {
      this.joining = undefined;
    });
    return this.joining;
  }

  private async joinLoop(): Promise<void> {
    clearTimeout(this.heartbeatTimer);
    let backoff = RETRY_BACKOFF_MS;
    const retry = async () => {
      await sleep(backoff);
      backoff = Math.min(backoff * 2, MAX_RETRY_BACKOFF_MS);
    };
    while (this.state !== 'closed') {
      this.state = 'joining';
      clearTimeout(this.heartbeatTimer);
      try {
        const outcome = await this.joinOnce();
        if (outcome === 'done') return; // stable, heartbeating (or closed meanwhile)
        if (outcome === 'retry') await retry();
      } catch (error) {
        // A broker away, a request timed out, a coordinator that moved: find it again and retry;
        // anything else (refused, fenced, a failed callback) stops the member.
        if (!isRetriableError(error)) {
          this.fail(error as Error);
          return;
        }
        await this.client.findCoordinator().catch(() => {});
        await retry();
      }
    }
  }

  /** One JoinGroup + SyncGroup round: 'done', 'rejoin' (at once) or 'retry' (after a backoff). */
  private async joinOnce(): Promise<'done' | 'rejoin' | 'retry'> {
    const { groupId, groupInstanceId } = this.options;
    const reason = this.rejoinReason;
    this.rejoinReason = null;
    const subscription: Subscription = {
      topics: this.options.topics,
      userData: this.options.userData?.() ?? null,
      ownedPartitions: this.owned,
      generationId: this.generationId,
      rackId: this.options.rackId ?? null,
    };
    const joinStarted = Date.now();
    const join = await this.client.send(
      'JoinGroup',
      {
        groupId,
        sessionTimeoutMs: this.options.sessionTimeoutMs,
        rebalanceTimeoutMs: this.options.rebalanceTimeoutMs,
        memberId: this.memberId,
        groupInstanceId,
        protocolType: 'consumer',
        protocols: [{ name: this.options.assignor.name, metadata: encodeSubscription(subscription) }],
        reason,
      },
      // The coordinator answers once every member has joined: up to the rebalance timeout.
      this.options.rebalanceTimeoutMs + 5_000,
    );
    if (join.errorCode === CODES.MEMBER_ID_REQUIRED) {
      // KIP-394: a new dynamic member joins again with the id the coordinator gave it.
      this.memberId = join.memberId;
      return 'rejoin';
    }
    const joinOutcome = await this.groupErrorOutcome('JoinGroup', join.errorCode);
    if (joinOutcome !== undefined) return joinOutcome;
    this.memberId = join.memberId;
    this.leaderOf = join.leader === join.memberId;
    const { trace } = this.options;
    trace?.('JoinGroup answered', { ms: Date.now() - joinStarted, leader: this.leaderOf, reason });
    const syncStarted = Date.now();
    // v9 (KIP-814): a static leader that rejoined unchanged must not assign again.
    const assignments = this.leaderOf && !join.skipAssignment ? await this.assign(join.members) : [];
    const sync = await this.client.send(
      'SyncGroup',
      {
        groupId,
        generationId: join.generationId,
        memberId: this.memberId,
        groupInstanceId,
        protocolType: 'consumer',
        protocolName: join.protocolName,
        assignments,
      },
      // A follower's answer waits for the leader's assignment.
      this.options.rebalanceTimeoutMs + 5_000,
    );
    trace?.('SyncGroup answered', { ms: Date.now() - syncStarted, generationId: join.generationId });
    const syncOutcome = await this.groupErrorOutcome('SyncGroup', sync.errorCode);
    if (syncOutcome !== undefined) return syncOutcome;
    this.generationId = join.generationId;
    // In the group now: heartbeats go on while the runtime commits and closes revoked tasks, which
    // may take longer than the session timeout (Java's heartbeat thread does the same).
    this.state = 'stable';
    this.scheduleHeartbeat();
    const revoked = await this.apply(decodeAssignment(sync.assignment));
    // A heartbeat may have seen a new rebalance meanwhile (and asked for a rejoin).
    return revoked || this.rejoinReason !== null ? 'rejoin' : 'done';
  }

  private async assign(
    members: Array<{ memberId: string; groupInstanceId: string | null; metadata: Buffer }>,
  ) {
    const joined: JoinedMember[] = members.map((m) => ({
      memberId: m.memberId,
      groupInstanceId: m.groupInstanceId,
      subscription: decodeSubscription(m.metadata),
    }));
    const topics = [...new Set(joined.flatMap((m) => m.subscription.topics))];
    const counts = await this.client.partitionCounts(topics);
    const plan = await this.options.assignor.assign(joined, (t) => counts.get(t) ?? 0);
    return joined.map((m) => ({
      memberId: m.memberId,
      assignment: encodeAssignment(plan.get(m.memberId) ?? { partitions: [], userData: null }),
    }));
  }

  /**
   * Takes the assignment: revokes what is owned and no longer assigned, then opens what is new.
   * True when something was revoked: the partitions the leader withheld for it wait for this
   * member's next join (KIP-429's follow-up rebalance).
   */
  private async apply(assignment: Assignment): Promise<boolean> {
    const change = assignmentChange(this.owned, assignment.partitions);
    const { listener } = this.options;
    if (change.revoked.length > 0)
      await callback('onPartitionsRevoked', () => listener.onPartitionsRevoked(change.revoked));
    this.owned = assignment.partitions;
    this.assignment = assignment;
    await callback('onPartitionsAssigned', () =>
      listener.onPartitionsAssigned(change.added, assignment, this.generationId),
    );
    if (change.revoked.length > 0) this.rejoinReason = 'revoked partitions for another member';
    return change.revoked.length > 0;
  }

  /** What a group error code means for the join loop; undefined for none. */
  private async groupErrorOutcome(api: string, code: number): Promise<'rejoin' | 'retry' | undefined> {
    const { groupId, groupInstanceId } = this.options;
    if (code === CODES.NONE) return undefined;
    if (code === CODES.FENCED_INSTANCE_ID) throw fencedInstanceError(groupId, groupInstanceId ?? '');
    if (code === CODES.REBALANCE_IN_PROGRESS) return 'rejoin';
    if (COORDINATOR_MOVED.has(code)) {
      await this.client.findCoordinator();
      return 'retry';
    }
    if (code === CODES.UNKNOWN_MEMBER_ID || code === CODES.ILLEGAL_GENERATION) {
      await this.lose(code);
      return 'rejoin';
    }
    throw groupError(api, code, groupId);
  }

  /** Removed from the group: what it owned may be another member's by now. */
  private async lose(code: number): Promise<void> {
    const sinceLastPoll = Date.now() - this.lastPoll;
    const error = removedFromGroupError(
      this.options.groupId,
      code === CODES.UNKNOWN_MEMBER_ID ? 'UNKNOWN_MEMBER_ID' : 'ILLEGAL_GENERATION',
      sinceLastPoll,
      this.options.rebalanceTimeoutMs,
    );
    if (code === CODES.UNKNOWN_MEMBER_ID) this.memberId = '';
    this.generationId = -1;
    const lost = this.owned;
    this.owned = [];
    this.assignment = { partitions: [], userData: null };
    if (lost.length > 0)
      await callback('onPartitionsLost', () => this.options.listener.onPartitionsLost(lost, error));
  }

  private scheduleHeartbeat(): void {
    clearTimeout(this.heartbeatTimer);
    if (this.state !== 'stable') return;
    this.heartbeatTimer = setTimeout(() => {
      this.heartbeat().catch((error: Error) => this.fail(error));
    }, this.options.heartbeatIntervalMs);
  }

  private async heartbeat(): Promise<void> {
    if (this.state !== 'stable') return;
    const { groupId, groupInstanceId } = this.options;
    if (Date.now() - this.lastPoll > this.options.rebalanceTimeoutMs) {
      // Java's poll timeout: a stalled loop gives its partitions up rather than hold every
      // rebalance for the rebalance timeout. A dynamic member leaves; a static one keeps its id.
      if (groupInstanceId === null) await this.leave('poll timeout expired').catch(() => {});
      this.memberId = groupInstanceId === null ? '' : this.memberId;
      await this.lose(CODES.UNKNOWN_MEMBER_ID);
      this.state = 'unjoined';
      void this.waitForPollThenRejoin();
      return;
    }
    let code: number;
    try {
      code = (
        await this.client.send('Heartbeat', {
          groupId,
          generationId: this.generationId,
          memberId: this.memberId,
          groupInstanceId,
        })
      ).errorCode;
    } catch {
      // The connection broke or the coordinator moved: find it again; the session timeout decides.
      await this.client.findCoordinator().catch(() => {});
      this.scheduleHeartbeat();
      return;
    }
    if (this.state !== 'stable') return;
    if (code === CODES.NONE) this.scheduleHeartbeat();
    else if (code === CODES.FENCED_INSTANCE_ID)
      this.fail(fencedInstanceError(groupId, groupInstanceId ?? ''));
    else if (code === CODES.REBALANCE_IN_PROGRESS) void this.rejoin('the group is rebalancing');
    else if (COORDINATOR_MOVED.has(code)) {
      await this.client.findCoordinator().catch(() => {});
      this.scheduleHeartbeat();
    } else if (code === CODES.UNKNOWN_MEMBER_ID || code === CODES.ILLEGAL_GENERATION) {
      await this.lose(code);
      void this.rejoin('removed from the group');
    } else this.fail(groupError('Heartbeat', code, groupId));
  }

  private async waitForPollThenRejoin(): Promise<void> {
    const expiredAt = this.lastPoll;
    while (this.state === 'unjoined' && this.lastPoll === expiredAt) await sleep(RETRY_BACKOFF_MS);
    if (this.state === 'unjoined') await this.rejoin('poll resumed after the poll timeout');
  }

  private async leave(reason: string): Promise<void> {
    const { groupId, groupInstanceId } = this.options;
    if (this.memberId === '' && groupInstanceId === null) return;
    const response = await this.client.send('LeaveGroup', {
      groupId,
      members: [{ memberId: this.memberId, groupInstanceId, reason }],
    });
    const code = response.errorCode || response.members.find((m) => m.errorCode !== 0)?.errorCode || 0;
    // Already gone is what leaving wants.
    if (code !== CODES.NONE && code !== CODES.UNKNOWN_MEMBER_ID)
      throw groupError('LeaveGroup', code, groupId);
  }

  private fail(error: Error): void {
    if (this.state === 'closed') return;
    this.fatal = error;
    this.state = 'closed';
    clearTimeout(this.heartbeatTimer);
    this.options.listener.onFatal(error);
  }

  /**
   * Stops heartbeating. `leaveGroup` (default: only for dynamic members) sends LeaveGroup, so the
   * group rebalances at once; a static member that does not leave keeps its partitions reserved
   * for the session timeout, for a restart with the same groupInstanceId. The runtime closes its
   * tasks first; no listener is called here.
   */
  async close(options: { leaveGroup?: boolean } = {}): Promise<void> {
    if (this.state === 'closed') {
      await this.client.disconnect();
      return;
    }
    const wasJoined = this.state === 'stable';
    this.state = 'closed';
    clearTimeout(this.heartbeatTimer);
    const leave = options.leaveGroup ?? this.options.groupInstanceId === null;
    try {
      if (leave && (wasJoined || this.options.groupInstanceId !== null))
        await this.leave('the member closed');
    } finally {
      await this.client.disconnect();
    }
  }
}

/** A listener's failure is the runtime's: fatal, as an exception from Java's callbacks ends poll(). */
async function callback(name: string, call: () => Promise<void>): Promise<void> {
  try {
    await call();
  } catch (error) {
    throw new GroupMembershipError(
      'REBALANCE_CALLBACK_FAILED',
      `the rebalance listener's ${name} failed: ${(error as Error)?.message ?? String(error)}`,
    );
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

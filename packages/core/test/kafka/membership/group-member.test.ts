// The member's decisions without a broker: a fake coordinator answers each request from a script
// and records what the member sent.
import { describe, expect, it } from 'vitest';
import {
  type Assignment,
  decodeSubscription,
  encodeAssignment,
  encodeSubscription,
  type TopicPartitions,
} from '../../../src/kafka/membership/consumer-protocol.ts';
import type { Body, CoordinatorLink, Response } from '../../../src/kafka/membership/coordinator.ts';
import { brokerTooOldError } from '../../../src/kafka/membership/group-errors.ts';
import { GroupMember, type GroupMemberOptions } from '../../../src/kafka/membership/group-member.ts';
import type { GroupApi } from '../../../src/kafka/membership/group-requests.ts';

const tp = (topic: string, ...partitions: number[]): TopicPartitions => ({ topic, partitions });

type Answer<A extends GroupApi> = (body: Body<A>) => Partial<Response<A>>;

class FakeCoordinator implements CoordinatorLink {
  readonly sent: Array<{ api: GroupApi; body: unknown }> = [];
  readonly answers: { [A in GroupApi]: Array<Answer<A>> } = {
    JoinGroup: [],
    SyncGroup: [],
    Heartbeat: [],
    LeaveGroup: [],
    OffsetCommit: [],
  };
  generation = 1;

  async findCoordinator(): Promise<void> {}
  async partitionCounts(topics: string[]) {
    return new Map(topics.map((t) => [t, 2]));
  }
  async disconnect(): Promise<void> {}

  async send<A extends GroupApi>(api: A, body: Body<A>): Promise<Response<A>> {
    this.sent.push({ api, body });
    const answer = (this.answers[api] as Array<Answer<A>>).shift();
    const defaults = {
      JoinGroup: {
        errorCode: 0,
        generationId: this.generation,
        memberId: 'm-1',
        leader: 'other',
        members: [],
        skipAssignment: false,
        protocolName: 'stream',
      },
      SyncGroup: { errorCode: 0, assignment: Buffer.alloc(0) },
      Heartbeat: { errorCode: 0 },
      LeaveGroup: { errorCode: 0, members: [] },
      OffsetCommit: { topics: [] },
    }[api];
    return { throttleTimeMs: 0, ...defaults, ...(answer?.(body) ?? {}) } as Response<A>;
  }

  sentOf<A extends GroupApi>(api: A): Array<Body<A>> {
    return this.sent.filter((s) => s.api === api).map((s) => s.body as Body<A>);
  }
}

const assignment = (...partitions: TopicPartitions[]): Buffer =>
  encodeAssignment({ partitions, userData: null });

function memberWith(fake: FakeCoordinator, options: Partial<GroupMemberOptions> = {}, revokeMs = 0) {
  const log: string[] = [];
  const errors: Error[] = [];
  const member = new GroupMember(fake, {
    groupId: 'g',
    groupInstanceId: null,
    topics: ['t'],
    sessionTimeoutMs: 10_000,
    rebalanceTimeoutMs: 60_000,
    heartbeatIntervalMs: 10,
    assignor: { name: 'stream', assign: () => new Map<string, Assignment>() },
    listener: {
      onPartitionsRevoked: async (p) => {
        log.push(`revoked ${JSON.stringify(p)}`);
        await new Promise((r) => setTimeout(r, revokeMs));
      },
      onPartitionsAssigned: async (p) => void log.push(`assigned ${JSON.stringify(p)}`),
      onPartitionsLost: async (p, e) => {
        log.push(`lost ${JSON.stringify(p)}`);
        errors.push(e);
      },
      onFatal: (e) => void errors.push(e),
    },
    ...options,
  });
  return { member, log, errors };
}

async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('GroupMember', () => {
  it('joins again with the member id the coordinator requires (KIP-394)', async () => {
    const fake = new FakeCoordinator();
    fake.answers.JoinGroup.push(() => ({ errorCode: 79, memberId: 'given' }));
    fake.answers.JoinGroup.push(() => ({ memberId: 'given' }));
    const { member } = memberWith(fake);
    await member.start();
    expect(fake.sentOf('JoinGroup').map((j) => j.memberId)).toEqual(['', 'given']);
    expect(member.id).toBe('given');
    await member.close();
  });

  it('revokes only what moved, then rejoins at once with what it still owns', async () => {
    const fake = new FakeCoordinator();
    fake.answers.SyncGroup.push(() => ({ assignment: assignment(tp('t', 0, 1)) }));
    // Revoking (committing, closing tasks) is slow: heartbeats go on meanwhile.
    const { member, log } = memberWith(fake, {}, 200);
    await member.start();
    // A rebalance takes partition 1 away: the member revokes it and rejoins for the follow-up.
    fake.generation = 2;
    fake.answers.Heartbeat.push(() => ({ errorCode: 27 }));
    fake.answers.SyncGroup.push(() => ({ assignment: assignment(tp('t', 0)) }));
    fake.answers.SyncGroup.push(() => ({ assignment: assignment(tp('t', 0)) }));
    await until(() => log.length === 2);
    const heartbeatsAtRevoke = fake.sentOf('Heartbeat').length;
    await until(() => fake.sentOf('JoinGroup').length === 3 && member.ownedPartitions.length === 1);
    expect(fake.sentOf('Heartbeat').length).toBeGreaterThan(heartbeatsAtRevoke + 3);
    await member.rejoin('settle');
    expect(log.slice(0, 3)).toEqual([
      `assigned ${JSON.stringify([tp('t', 0, 1)])}`,
      `revoked ${JSON.stringify([tp('t', 1)])}`,
      'assigned []',
    ]);
    const [, second, third] = fake
      .sentOf('JoinGroup')
      .map((j) => decodeSubscription(j.protocols[0]!.metadata));
    expect(second).toMatchObject({ ownedPartitions: [tp('t', 0, 1)], generationId: 1 });
    expect(third).toMatchObject({ ownedPartitions: [tp('t', 0)], generationId: 2 });
    expect(fake.sentOf('JoinGroup')[2]!.reason).toBe('revoked partitions for another member');
    await member.close();
  });

  it('stops with a clear error when another live member took its groupInstanceId', async () => {
    const fake = new FakeCoordinator();
    const { member, errors } = memberWith(fake, { groupInstanceId: 'pod-1' });
    await member.start();
    fake.answers.Heartbeat.push(() => ({ errorCode: 82 }));
    await until(() => errors.length > 0);
    expect(errors[0]!.message).toMatch(/another live member of group 'g' uses groupInstanceId 'pod-1'/);
    const heartbeats = fake.sentOf('Heartbeat').length;
    await new Promise((r) => setTimeout(r, 50));
    expect(fake.sentOf('Heartbeat').length).toBe(heartbeats);
    await member.close();
  });

  it('loses its partitions when the coordinator removed it, and says why', async () => {
    const fake = new FakeCoordinator();
    fake.answers.SyncGroup.push(() => ({ assignment: assignment(tp('t', 0)) }));
    const { member, log, errors } = memberWith(fake);
    await member.start();
    fake.answers.Heartbeat.push(() => ({ errorCode: 25 }));
    await until(() => fake.sentOf('JoinGroup').length === 2);
    expect(log).toContain(`lost ${JSON.stringify([tp('t', 0)])}`);
    expect(errors[0]!.message).toMatch(/removed this member from group 'g' \(UNKNOWN_MEMBER_ID\)/);
    expect(fake.sentOf('JoinGroup')[1]!.memberId).toBe('');
    await member.close();
  });

  it('gives up its partitions after the poll timeout, and rejoins when polled again', async () => {
    const fake = new FakeCoordinator();
    fake.answers.SyncGroup.push(() => ({ assignment: assignment(tp('t', 0)) }));
    const { member, errors } = memberWith(fake, { rebalanceTimeoutMs: 50 });
    await member.start();
    await until(() => errors.length > 0);
    expect(errors[0]!.message).toMatch(/longer than consumer.rebalanceTimeoutMs \(50 ms, /);
    expect(errors[0]!.message).toContain('Raise consumer.rebalanceTimeoutMs');
    expect(fake.sentOf('LeaveGroup')).toHaveLength(1);
    expect(member.ownedPartitions).toEqual([]);
    expect(fake.sentOf('JoinGroup')).toHaveLength(1);
    member.poll();
    await until(() => fake.sentOf('JoinGroup').length === 2);
    await member.close();
  });

  it('closes a static member without leaving unless asked', async () => {
    const fake = new FakeCoordinator();
    const first = memberWith(fake, { groupInstanceId: 'pod-1' });
    await first.member.start();
    await first.member.close();
    expect(fake.sentOf('LeaveGroup')).toEqual([]);
    const second = memberWith(fake, { groupInstanceId: 'pod-1' });
    await second.member.start();
    await second.member.close({ leaveGroup: true });
    expect(fake.sentOf('LeaveGroup')).toEqual([
      { groupId: 'g', members: [{ memberId: 'm-1', groupInstanceId: 'pod-1', reason: 'the member closed' }] },
    ]);
  });

  it('assigns as the leader from the decoded subscriptions, but not when told to skip (KIP-814)', async () => {
    const fake = new FakeCoordinator();
    const seen: string[][] = [];
    const metadata = encodeSubscription({
      topics: ['t'],
      userData: null,
      ownedPartitions: [],
      generationId: -1,
      rackId: null,
    });
    const members = [{ memberId: 'm-1', groupInstanceId: 'pod-1', metadata }];
    fake.answers.JoinGroup.push(() => ({ leader: 'm-1', members }));
    fake.answers.JoinGroup.push(() => ({ leader: 'm-1', members, skipAssignment: true }));
    const { member } = memberWith(fake, {
      assignor: {
        name: 'stream',
        assign: (joined, count) => {
          seen.push(joined.map((j) => `${j.memberId}:${j.subscription.topics}:${count('t')}`));
          return new Map([['m-1', { partitions: [tp('t', 0, 1)], userData: null }]]);
        },
      },
    });
    await member.start();
    expect(seen).toEqual([['m-1:t:2']]);
    expect(fake.sentOf('SyncGroup')[0]!.assignments).toHaveLength(1);
    await member.rejoin('again');
    expect(seen).toHaveLength(1);
    expect(fake.sentOf('SyncGroup')[1]!.assignments).toEqual([]);
    await member.close();
  });

  it('retries a join the network broke, and stops when a rebalance callback fails', async () => {
    const fake = new FakeCoordinator();
    let failures = 0;
    fake.answers.JoinGroup.push(() => {
      failures++;
      throw Object.assign(new Error('Connection closed'), { retriable: true });
    });
    fake.answers.SyncGroup.push(() => ({ assignment: assignment(tp('t', 0)) }));
    const { member, errors } = memberWith(fake, {
      listener: {
        onPartitionsRevoked: async () => {},
        onPartitionsAssigned: async () => {
          throw new Error('state directory locked');
        },
        onPartitionsLost: async () => {},
        onFatal: (e) => void errors.push(e),
      },
    });
    await expect(member.start()).rejects.toThrow(/onPartitionsAssigned failed: state directory locked/);
    expect(failures).toBe(1);
    expect(fake.sentOf('JoinGroup')).toHaveLength(2);
    expect(errors.map((e) => e.message)).toEqual([
      "the rebalance listener's onPartitionsAssigned failed: state directory locked",
    ]);
    await member.close();
  });

  it('fails start() when the coordinator is too old, and says so', async () => {
    const fake = new FakeCoordinator();
    fake.answers.JoinGroup.push(() => {
      throw brokerTooOldError('JoinGroup', 5, 6, 'old-broker:9092');
    });
    const { member, errors } = memberWith(fake);
    await expect(member.start()).rejects.toThrow(
      /group coordinator old-broker:9092 speaks JoinGroup up to v5; .*needs JoinGroup v6 or newer/,
    );
    expect(errors).toHaveLength(1);
    expect(fake.sentOf('JoinGroup')).toHaveLength(1);
    await member.close();
  });
});

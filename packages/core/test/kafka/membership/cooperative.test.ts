// KIP-429's two-phase moves and the sticky, co-partitioned target, without a broker.
import { describe, expect, it } from 'vitest';
import type { Subscription, TopicPartitions } from '../../../src/kafka/membership/consumer-protocol.ts';
import {
  assignmentChange,
  cooperativeAssign,
  toKeys,
  validOwnership,
} from '../../../src/kafka/membership/cooperative.ts';
import { assignStreamsGroup, streamsAssignor } from '../../../src/kafka/membership/task-assignment.ts';

const tp = (topic: string, ...partitions: number[]): TopicPartitions => ({ topic, partitions });

describe('cooperativeAssign', () => {
  it('moves a partition in two rebalances: first its owner revokes it, then the new owner gets it', () => {
    const target = new Map([
      ['A', [tp('t', 0)]],
      ['B', [tp('t', 1)]],
    ]);
    // Rebalance 1: A owns 0 and 1; the target moves 1 to B.
    const first = cooperativeAssign(
      new Map([
        ['A', toKeys([tp('t', 0, 1)])],
        ['B', new Set()],
      ]),
      target,
    );
    expect(first.assignment.get('A')).toEqual([tp('t', 0)]);
    expect(first.assignment.get('B')).toEqual([]);
    expect(first.withheld.get('B')).toEqual([tp('t', 1)]);
    expect(first.followUp).toBe(true);
    // A revoked 1 (its assignment lacks it) and rejoins: rebalance 2 hands 1 to B.
    const ownedAfter = new Map([
      ['A', toKeys(first.assignment.get('A')!)],
      ['B', toKeys(first.assignment.get('B')!)],
    ]);
    const second = cooperativeAssign(ownedAfter, target);
    expect(second.assignment.get('B')).toEqual([tp('t', 1)]);
    expect(second.followUp).toBe(false);
  });

  it('gives a partition whose owner left the group at once', () => {
    const result = cooperativeAssign(new Map([['B', new Set()]]), new Map([['B', [tp('t', 0, 1)]]]));
    expect(result.assignment.get('B')).toEqual([tp('t', 0, 1)]);
    expect(result.followUp).toBe(false);
  });
});

describe('validOwnership', () => {
  it('trusts the newest generation when two members claim a partition', () => {
    const owned = validOwnership([
      { memberId: 'zombie', ownedPartitions: [tp('t', 0, 1)], generationId: 3 },
      { memberId: 'B', ownedPartitions: [tp('t', 1)], generationId: 5 },
    ]);
    expect([...owned.get('zombie')!]).toEqual([...toKeys([tp('t', 0)])]);
    expect([...owned.get('B')!]).toEqual([...toKeys([tp('t', 1)])]);
  });
});

describe('assignmentChange', () => {
  it('revokes only what is no longer assigned', () => {
    expect(assignmentChange([tp('a', 0, 1), tp('b', 0)], [tp('a', 1, 2), tp('b', 0)])).toEqual({
      revoked: [tp('a', 0)],
      added: [tp('a', 2)],
      kept: [tp('a', 1), tp('b', 0)],
    });
  });
});

describe('assignStreamsGroup', () => {
  // Two co-partitioned inputs (left, right) in sub-topology 0 and one (other) in sub-topology 1.
  const subtopologies = [
    { id: 0, sourceTopics: ['left', 'right'] },
    { id: 1, sourceTopics: ['other'] },
  ];
  const count = () => 4;
  const member = (memberId: string, generationId: number, ...owned: TopicPartitions[]) => ({
    memberId,
    ownedPartitions: owned,
    generationId,
  });

  it('keeps co-partitioned partitions of a task on one member', () => {
    const { members } = assignStreamsGroup(subtopologies, count, [member('A', -1), member('B', -1)]);
    for (const { partitions } of members.values()) {
      const left = partitions.find((p) => p.topic === 'left')?.partitions ?? [];
      const right = partitions.find((p) => p.topic === 'right')?.partitions ?? [];
      expect(left).toEqual(right);
    }
    const total = [...members.values()].flatMap((m) => m.targetTasks);
    expect(total.sort()).toEqual(['0_0', '0_1', '0_2', '0_3', '1_0', '1_1', '1_2', '1_3']);
    expect(members.get('A')!.targetTasks).toHaveLength(4);
  });

  it('scales out stickily and cooperatively: A and B keep what they keep, C waits one rebalance', () => {
    const initial = assignStreamsGroup(subtopologies, count, [member('A', -1), member('B', -1)]).members;
    const aOwned = initial.get('A')!.partitions;
    const bOwned = initial.get('B')!.partitions;
    const first = assignStreamsGroup(subtopologies, count, [
      member('A', 1, ...aOwned),
      member('B', 1, ...bOwned),
      member('C', -1),
    ]);
    expect(first.followUp).toBe(true);
    expect(first.members.get('C')!.partitions).toEqual([]); // all still owned by A or B
    for (const [id, before] of [
      ['A', aOwned],
      ['B', bOwned],
    ] as const) {
      const now = toKeys(first.members.get(id)!.partitions);
      // Only removals: nothing new for A or B, and what they keep is a subset of what they had.
      for (const key of now) expect(toKeys(before).has(key)).toBe(true);
    }
    // Rebalance 2: A and B revoked what they lost; C gets its target.
    const second = assignStreamsGroup(subtopologies, count, [
      member('A', 2, ...first.members.get('A')!.partitions),
      member('B', 2, ...first.members.get('B')!.partitions),
      member('C', 2),
    ]);
    expect(second.followUp).toBe(false);
    expect(second.members.get('C')!.targetTasks).toEqual(first.members.get('C')!.targetTasks);
    expect(second.members.get('C')!.targetTasks.length).toBeGreaterThanOrEqual(2);
    expect(toKeys(second.members.get('C')!.partitions).size).toBe(
      second.members.get('C')!.targetTasks.reduce((n, t) => n + (t.startsWith('0_') ? 2 : 1), 0),
    );
  });

  it('gives a static member that rejoins with its partitions the same tasks (stickiness)', () => {
    const initial = assignStreamsGroup(subtopologies, count, [member('A', -1), member('B', -1)]).members;
    // B restarted: a new member id, the same owned partitions (a static member keeps them).
    const again = assignStreamsGroup(subtopologies, count, [
      member('A', 1, ...initial.get('A')!.partitions),
      member('B2', 1, ...initial.get('B')!.partitions),
    ]);
    expect(again.followUp).toBe(false);
    expect(again.members.get('B2')!.targetTasks.sort()).toEqual(initial.get('B')!.targetTasks.sort());
    expect(again.members.get('A')!.partitions).toEqual(initial.get('A')!.partitions);
  });
});

describe('streamsAssignor', () => {
  it('reads previous tasks from the runtime’s userData and writes the assignment’s', async () => {
    const subscription = (userData: string | null): Subscription => ({
      topics: ['t'],
      userData: userData === null ? null : Buffer.from(userData),
      ownedPartitions: [],
      generationId: -1,
      rackId: null,
    });
    const assignor = streamsAssignor({
      subtopologies: () => [{ id: 0, sourceTopics: ['t'] }],
      previousTasks: (userData) => (userData === null ? [] : JSON.parse(userData.toString())),
      assignmentUserData: (memberId, tasks) => Buffer.from(`${memberId}:${tasks.join(',')}`),
    });
    // A fresh group: no one owns partitions, but B has the state of tasks 0_2 and 0_3 on disk.
    const plan = await assignor.assign(
      [
        { memberId: 'A', groupInstanceId: null, subscription: subscription(null) },
        { memberId: 'B', groupInstanceId: null, subscription: subscription('["0_2","0_3"]') },
      ],
      () => 4,
    );
    expect(plan.get('B')).toEqual({ partitions: [tp('t', 2, 3)], userData: Buffer.from('B:0_2,0_3') });
    expect(plan.get('A')!.partitions).toEqual([tp('t', 0, 1)]);
  });
});

import { describe, expect, it } from 'vitest';
import { decodeUserData, encodeUserData } from '../../src/kafka/assignor.ts';
import {
  assignorClients,
  decodeSubscriptionInfo,
  encodeSubscriptionInfo,
  LATEST_OFFSET,
  previousActiveTasks,
  previousStandbyTasks,
  SUBSCRIPTION_INFO_VERSION,
  SubscriptionInfoError,
  taskOffsetSum,
  UNKNOWN_OFFSET_SUM,
} from '../../src/kafka/subscription-info.ts';
import {
  computeTaskLags,
  endOffsetSums,
  isCaughtUp,
} from '../../src/processor/internals/assignment/task-lags.ts';

const sums = (entries: Record<string, number>) => new Map(Object.entries(entries));

describe('subscription info (version 2)', () => {
  it('round-trips process id, owned tasks, application server and task offset sums', () => {
    const info = {
      ownedTasks: ['0_1'],
      applicationServer: 'host-a:8080',
      processId: '6f1c2a4e-aaaa-4bbb-8ccc-0123456789ab',
      taskOffsetSums: sums({ '0_1': LATEST_OFFSET, '0_2': 1234, '1_0': UNKNOWN_OFFSET_SUM }),
    };
    const decoded = decodeSubscriptionInfo(encodeSubscriptionInfo(info));
    expect(decoded).toEqual({ ...info, version: SUBSCRIPTION_INFO_VERSION });
    expect(previousActiveTasks(decoded)).toEqual(['0_1']);
    expect(previousStandbyTasks(decoded)).toEqual(['0_2', '1_0']);
  });

  it('stays readable by a version-1 reader, and reads a version-1 member as running its owned tasks', () => {
    const v2 = encodeSubscriptionInfo({
      ownedTasks: ['0_0', '0_3'],
      applicationServer: 'h:1',
      taskOffsetSums: sums({ '0_0': LATEST_OFFSET, '0_3': LATEST_OFFSET, '0_5': 99 }),
    });
    expect(decodeUserData(v2)).toEqual({ ownedTasks: ['0_0', '0_3'], applicationServer: 'h:1' });

    const v1 = decodeSubscriptionInfo(encodeUserData({ ownedTasks: ['0_2'] }));
    expect(v1.version).toBe(1);
    expect(v1.taskOffsetSums).toEqual(sums({ '0_2': LATEST_OFFSET }));
    expect(decodeSubscriptionInfo(null)).toEqual({ version: 1, ownedTasks: [], taskOffsetSums: new Map() });
  });

  it('carries the SHUTDOWN_APPLICATION flag the leader reads with the version-1 reader', () => {
    const base = { ownedTasks: [], processId: 'p', taskOffsetSums: sums({}) };
    expect(
      decodeUserData(encodeSubscriptionInfo({ ...base, shutdownRequested: true })).shutdownRequested,
    ).toBe(true);
    expect(decodeUserData(encodeSubscriptionInfo(base)).shutdownRequested).toBeUndefined();
  });

  it('reads the fields it knows of a newer version', () => {
    const v3 = Buffer.from(
      JSON.stringify({
        version: 3,
        ownedTasks: [],
        processId: 'p',
        taskOffsetSums: { '0_0': 7 },
        rack: 'r1',
      }),
    );
    const decoded = decodeSubscriptionInfo(v3);
    expect(decoded.version).toBe(3);
    expect(decoded.taskOffsetSums).toEqual(sums({ '0_0': 7 }));
  });

  it('rejects offset sums that are not offsets, saying what is allowed', () => {
    const bad = Buffer.from(JSON.stringify({ version: 2, ownedTasks: [], taskOffsetSums: { '0_0': -7 } }));
    expect(() => decodeSubscriptionInfo(bad)).toThrow(SubscriptionInfoError);
    expect(() => decodeSubscriptionInfo(bad)).toThrow(/task 0_0: offset sum -7 is not an integer >= 0, -2/);
    expect(() =>
      decodeSubscriptionInfo(Buffer.from(JSON.stringify({ version: 2, taskOffsetSums: [1] }))),
    ).toThrow(/taskOffsetSums must be an object/);
    expect(() => encodeSubscriptionInfo({ ownedTasks: [], taskOffsetSums: sums({ '0_0': 1.5 }) })).toThrow(
      /offset sum 1.5/,
    );
  });

  it('sums a task’s changelog positions, saturating outside the exact integer range', () => {
    expect(taskOffsetSum([{ offset: 10 }, { offset: 32 }])).toBe(42);
    expect(taskOffsetSum([])).toBe(0);
    expect(taskOffsetSum([{ offset: Number.MAX_SAFE_INTEGER - 1 }, { offset: 5 }])).toBe(
      Number.MAX_SAFE_INTEGER,
    );
  });
});

describe('task lags', () => {
  const ends = endOffsetSums(
    [
      {
        id: '0_0',
        changelogs: [
          { topic: 's1', partition: 0 },
          { topic: 's2', partition: 0 },
        ],
      },
      { id: '0_1', changelogs: [{ topic: 's1', partition: 1 }] },
      { id: '1_0', changelogs: [] },
    ],
    (topic, partition) => (topic === 's1' ? 1000 + partition : 500),
  );

  it('adds up end offsets per stateful task and leaves stateless tasks out', () => {
    expect(ends).toEqual(sums({ '0_0': 1500, '0_1': 1001 }));
  });

  it('is end − offset sum; running, unknown, missing and past-the-end as Kafka Streams computes them', () => {
    expect(computeTaskLags(sums({ '0_0': 1400, '0_1': LATEST_OFFSET }), ends)).toEqual(
      new Map<string, unknown>([
        ['0_0', 100],
        ['0_1', 'running'],
      ]),
    );
    expect(computeTaskLags(sums({ '0_0': UNKNOWN_OFFSET_SUM }), ends)).toEqual(
      new Map<string, unknown>([
        ['0_0', 'unknown'],
        ['0_1', 1001],
      ]),
    );
    // A position past the end: the changelog was recreated, the state must be rebuilt.
    expect(computeTaskLags(sums({ '0_1': 5000 }), ends).get('0_1')).toBe(1001);
  });

  it('calls a copy caught up within acceptableRecoveryLag, and every copy with an unbounded one', () => {
    expect(isCaughtUp(10_000, 10_000)).toBe(true);
    expect(isCaughtUp(10_001, 10_000)).toBe(false);
    expect(isCaughtUp('running', 0)).toBe(true);
    expect(isCaughtUp('unknown', 10_000)).toBe(false);
    expect(isCaughtUp(undefined, Number.MAX_SAFE_INTEGER)).toBe(true);
  });
});

describe('assignorClients', () => {
  it('groups members by process, counts them as capacity and merges their offset sums', () => {
    const member = (memberId: string, processId: string | undefined, s: Record<string, number>) => ({
      memberId,
      info: { version: 2, ownedTasks: [], processId, taskOffsetSums: sums(s) },
    });
    const { clients, processOf } = assignorClients(
      [
        member('m1', 'A', { '0_0': LATEST_OFFSET }),
        member('m2', 'A', { '0_0': 10, '0_1': 900 }),
        member('m3', 'B', { '0_0': 1450 }),
        member('m4', undefined, {}),
      ],
      sums({ '0_0': 1500, '0_1': 1001 }),
    );
    expect(processOf.get('m2')).toBe('A');
    expect(processOf.get('m4')).toBe('m4');
    const a = clients.find((c) => c.processId === 'A')!;
    expect(a.capacity).toBe(2);
    expect(a.previousActive).toEqual(['0_0']);
    expect(a.previousStandby).toEqual(['0_1']);
    expect(a.lags).toEqual(
      new Map<string, unknown>([
        ['0_0', 'running'],
        ['0_1', 101],
      ]),
    );
    expect(clients.find((c) => c.processId === 'B')!.lags.get('0_0')).toBe(50);
    expect(clients.find((c) => c.processId === 'm4')!.lags).toEqual(
      new Map([
        ['0_0', 1500],
        ['0_1', 1001],
      ]),
    );
  });
});

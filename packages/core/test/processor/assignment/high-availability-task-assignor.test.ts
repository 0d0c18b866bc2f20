import { describe, expect, it } from 'vitest';
import {
  type AssignorClient,
  assignHighAvailability,
  type HighAvailabilityAssignment,
  type HighAvailabilityConfig,
} from '../../../src/processor/internals/assignment/high-availability-task-assignor.ts';
import type { TaskChangelogs, TaskLag } from '../../../src/processor/internals/assignment/task-lags.ts';

const stateful = (n: number, sub = 0): TaskChangelogs[] =>
  Array.from({ length: n }, (_, p) => ({
    id: `${sub}_${p}`,
    changelogs: [{ topic: `app-store${sub}-changelog`, partition: p }],
  }));
const stateless = (n: number, sub: number): TaskChangelogs[] =>
  Array.from({ length: n }, (_, p) => ({ id: `${sub}_${p}`, changelogs: [] }));

const config = (over: Partial<HighAvailabilityConfig> = {}): HighAvailabilityConfig => ({
  numStandbyReplicas: 0,
  acceptableRecoveryLag: 10_000,
  maxWarmupReplicas: 2,
  ...over,
});

function client(
  processId: string,
  previousActive: string[] = [],
  lags: Record<string, TaskLag> = {},
  previousStandby: string[] = [],
): AssignorClient {
  const all = new Map<string, TaskLag>(Object.entries(lags));
  for (const t of previousActive) if (!all.has(t)) all.set(t, 'running');
  return { processId, previousActive, previousStandby, lags: all };
}

/** The next rebalance's input: every active running, standbys and warm-ups at the given lags. */
function feedBack(
  result: HighAvailabilityAssignment,
  copyLag: (processId: string, task: string) => TaskLag,
): AssignorClient[] {
  return [...result.clients].map(([id, t]) => {
    const lags: Record<string, TaskLag> = {};
    for (const task of [...t.standby, ...t.warmup]) lags[task] = copyLag(id, task);
    return client(id, t.active, lags, [...t.standby, ...t.warmup]);
  });
}

function actives(result: HighAvailabilityAssignment): Map<string, string> {
  const owner = new Map<string, string>();
  for (const [id, t] of result.clients)
    for (const task of t.active) {
      expect(owner.has(task), `task ${task} active twice`).toBe(false);
      owner.set(task, id);
    }
  return owner;
}

/** Every rule that holds for any assignment: one active per task, no two copies on one client. */
function checkInvariants(result: HighAvailabilityAssignment, tasks: TaskChangelogs[]) {
  const owner = actives(result);
  expect([...owner.keys()].sort()).toEqual(tasks.map((t) => t.id).sort());
  for (const [id, t] of result.clients) {
    const copies = [...t.active, ...t.standby, ...t.warmup];
    expect(new Set(copies).size, `client ${id} holds a task twice: ${copies}`).toBe(copies.length);
  }
}

const counts = (result: HighAvailabilityAssignment, kind: 'active' | 'standby' | 'warmup') =>
  [...result.clients.values()].map((t) => t[kind].length).sort();

describe('assignHighAvailability', () => {
  it('balances a fresh group and needs no probing rebalance', () => {
    const tasks = [...stateful(6), ...stateless(3, 1)];
    const result = assignHighAvailability([client('a'), client('b'), client('c')], tasks, config());
    checkInvariants(result, tasks);
    expect(counts(result, 'active')).toEqual([3, 3, 3]);
    expect(result.probingRebalanceNeeded).toBe(false);
  });

  it('never puts a standby with its active, nor two copies of a task on one client', () => {
    const tasks = stateful(8);
    for (const replicas of [1, 2]) {
      const result = assignHighAvailability(
        [client('a'), client('b'), client('c')],
        tasks,
        config({ numStandbyReplicas: replicas }),
      );
      checkInvariants(result, tasks);
      const owner = actives(result);
      for (const task of tasks) {
        const holders = [...result.clients].filter(([, t]) => t.standby.includes(task.id)).map(([id]) => id);
        expect(holders).toHaveLength(replicas);
        expect(holders).not.toContain(owner.get(task.id));
      }
      expect(
        Math.max(...counts(result, 'standby')) - Math.min(...counts(result, 'standby')),
      ).toBeLessThanOrEqual(1);
    }
  });

  it('places at most one copy per client when asked for more standbys than clients', () => {
    const tasks = stateful(4);
    const result = assignHighAvailability(
      [client('a'), client('b')],
      tasks,
      config({ numStandbyReplicas: 3 }),
    );
    checkInvariants(result, tasks);
    // Two clients: the active on one, a single standby on the other.
    expect(counts(result, 'standby')).toEqual([2, 2]);
    expect(counts(result, 'active')).toEqual([2, 2]);
  });

  it('gives a task whose owner left to the caught-up client, not to a balanced target that is far behind', () => {
    // a ran 0_0; a is gone. b holds 0_0's state 50 records behind, c holds none and has less work.
    const tasks = stateful(3);
    const result = assignHighAvailability(
      [client('b', ['0_1', '0_2'], { '0_0': 50 }), client('c', [], { '0_0': 900_000 })],
      tasks,
      config(),
    );
    checkInvariants(result, tasks);
    expect(actives(result).get('0_0')).toBe('b');
  });

  it('promotes a caught-up standby when the active instance leaves', () => {
    const tasks = stateful(4);
    const first = assignHighAvailability(
      [client('a'), client('b'), client('c')],
      tasks,
      config({ numStandbyReplicas: 1 }),
    );
    const owner = actives(first);
    const survivors = feedBack(first, () => 20).filter((c) => c.processId !== 'a');
    const second = assignHighAvailability(survivors, tasks, config({ numStandbyReplicas: 1 }));
    checkInvariants(second, tasks);
    for (const task of first.clients.get('a')!.active) {
      const standbyHolder = [...first.clients].find(([, t]) => t.standby.includes(task))![0];
      expect(actives(second).get(task), `${task} goes to its standby`).toBe(standbyHolder);
    }
    // The survivors keep their own actives.
    for (const [task, id] of owner) if (id !== 'a') expect(actives(second).get(task)).toBe(id);
    // Each task has its standby again, on the other survivor.
    for (const task of tasks) {
      const copies = [...second.clients.values()].filter((t) => t.standby.includes(task.id));
      expect(copies).toHaveLength(1);
    }
  });

  it('keeps the actives on the caught-up client and warms up the joining one, then moves them after the probing rebalance', () => {
    const tasks = stateful(4);
    const running = client('a', ['0_0', '0_1', '0_2', '0_3']);
    const joined = assignHighAvailability([running, client('b')], tasks, config());
    checkInvariants(joined, tasks);
    expect(joined.clients.get('a')!.active).toEqual(['0_0', '0_1', '0_2', '0_3']);
    expect(joined.clients.get('b')).toEqual({ active: [], standby: [], warmup: ['0_0', '0_1'] });
    expect(joined.probingRebalanceNeeded).toBe(true);

    // Probing rebalance while the warm-ups are still far behind: nothing moves, probe again.
    const stillBehind = assignHighAvailability(
      feedBack(joined, () => 400_000),
      tasks,
      config(),
    );
    expect(stillBehind).toEqual(joined);

    // Caught up (within acceptableRecoveryLag): the tasks move, no more warm-ups, no more probing.
    const warm = assignHighAvailability(
      feedBack(joined, () => 3_000),
      tasks,
      config(),
    );
    checkInvariants(warm, tasks);
    expect(warm.clients.get('b')).toEqual({ active: ['0_0', '0_1'], standby: [], warmup: [] });
    expect(warm.clients.get('a')!.active).toEqual(['0_2', '0_3']);
    expect(warm.probingRebalanceNeeded).toBe(false);
  });

  it('hands out at most maxWarmupReplicas warm-ups in total and moves the rest in later probing rebalances', () => {
    const tasks = stateful(6);
    const running = client(
      'a',
      tasks.map((t) => t.id),
    );
    const cfg = config({ maxWarmupReplicas: 1 });
    let result = assignHighAvailability([running, client('b'), client('c')], tasks, cfg);
    const warmups = () => [...result.clients.values()].flatMap((t) => t.warmup);
    expect(warmups()).toHaveLength(1);
    expect(result.probingRebalanceNeeded).toBe(true);
    for (let round = 0; round < 10 && result.probingRebalanceNeeded; round++) {
      result = assignHighAvailability(
        feedBack(result, () => 0),
        tasks,
        cfg,
      );
      checkInvariants(result, tasks);
      expect(warmups().length).toBeLessThanOrEqual(1);
    }
    expect(result.probingRebalanceNeeded).toBe(false);
    expect(counts(result, 'active')).toEqual([2, 2, 2]);
  });

  it('is stable: the same input gives the same result, and feeding it back changes nothing', () => {
    const tasks = [...stateful(5), ...stateful(3, 1), ...stateless(4, 2)];
    const cfg = config({ numStandbyReplicas: 1 });
    const first = assignHighAvailability([client('a'), client('b'), client('c')], tasks, cfg);
    expect(assignHighAvailability([client('c'), client('a'), client('b')], tasks, cfg)).toEqual(first);
    let next = first;
    for (let i = 0; i < 3; i++) {
      next = assignHighAvailability(
        feedBack(next, () => 10),
        tasks,
        cfg,
      );
      expect(next).toEqual(first);
    }
    expect(first.probingRebalanceNeeded).toBe(false);
  });

  it('is sticky when a client joins: only the tasks the newcomer needs move', () => {
    const tasks = stateful(6);
    const cfg = config({ acceptableRecoveryLag: Number.MAX_SAFE_INTEGER });
    const two = assignHighAvailability([client('a'), client('b')], tasks, cfg);
    const three = assignHighAvailability([...feedBack(two, () => 0), client('c')], tasks, cfg);
    checkInvariants(three, tasks);
    expect(counts(three, 'active')).toEqual([2, 2, 2]);
    const before = actives(two);
    const moved = [...actives(three)].filter(([task, id]) => before.get(task) !== id);
    expect(moved.map(([, id]) => id)).toEqual(['c', 'c']);
  });

  it('weights the balance by capacity (members per instance)', () => {
    const tasks = stateful(9);
    const result = assignHighAvailability([{ ...client('a'), capacity: 2 }, client('b')], tasks, config());
    expect(result.clients.get('a')!.active).toHaveLength(6);
    expect(result.clients.get('b')!.active).toHaveLength(3);
  });

  it('moves a standby whose balanced target is far behind to a caught-up client, the target warming up', () => {
    // d kept 0_0's state 5 records behind (not as a standby) and is the busiest: the balanced
    // standby target is b, which has nothing; the standby goes to d and b warms up.
    const tasks = stateful(5);
    const result = assignHighAvailability(
      [
        client('a', ['0_0']),
        client('b', ['0_2']),
        client('c', ['0_3']),
        client('d', ['0_1', '0_4'], { '0_0': 5 }),
      ],
      tasks,
      config({ numStandbyReplicas: 1 }),
    );
    checkInvariants(result, tasks);
    expect(result.clients.get('d')!.standby).toContain('0_0');
    expect([...result.clients.values()].flatMap((t) => t.warmup)).toEqual(['0_0']);
    expect(result.probingRebalanceNeeded).toBe(true);
  });

  it('leaves a task two instances both claim (one was a zombie) with the one that is ahead', () => {
    const tasks = stateful(2);
    const result = assignHighAvailability(
      [client('a', ['0_0'], { '0_0': 90_000 }), client('b', ['0_0', '0_1'])],
      tasks,
      config(),
    );
    checkInvariants(result, tasks);
    expect(actives(result).get('0_0')).toBe('b');
  });

  it('lets a known lag outrank an unknown one', () => {
    const tasks = stateful(2);
    const result = assignHighAvailability(
      [
        client('a', [], { '0_0': 'unknown', '0_1': 20_000 }),
        client('b', [], { '0_0': 30_000, '0_1': 'unknown' }),
      ],
      tasks,
      config(),
    );
    expect(actives(result)).toEqual(
      new Map([
        ['0_0', 'b'],
        ['0_1', 'a'],
      ]),
    );
  });

  it('returns nothing for no clients and rejects a bad config clearly', () => {
    expect(assignHighAvailability([], stateful(2), config()).clients.size).toBe(0);
    expect(() =>
      assignHighAvailability([client('a')], stateful(2), config({ maxWarmupReplicas: -1 })),
    ).toThrow(/maxWarmupReplicas = -1: use an integer >= 0/);
    expect(() => assignHighAvailability([client('a'), client('a')], stateful(2), config())).toThrow(
      /two clients with process id a/,
    );
  });
});

describe('assignHighAvailability on random groups', () => {
  /** A small seeded generator (mulberry32): the same groups on every run. */
  function random(seed: number) {
    let a = seed;
    return () => {
      a = (a + 0x6d2b79f5) | 0;
      let t = Math.imul(a ^ (a >>> 15), 1 | a);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }

  it('keeps its rules on 200 random groups, and converges to a balanced, stable assignment', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const rnd = random(seed);
      const pick = <T>(list: T[]) => list[Math.floor(rnd() * list.length)]!;
      const clientCount = 1 + Math.floor(rnd() * 5);
      const tasks = [...stateful(1 + Math.floor(rnd() * 12)), ...stateless(Math.floor(rnd() * 4), 1)];
      const ids = Array.from({ length: clientCount }, (_, i) => `c${i}`);
      const cfg = config({
        numStandbyReplicas: Math.floor(rnd() * 3),
        maxWarmupReplicas: 1 + Math.floor(rnd() * 3),
      });
      // Random history: some tasks had an owner (maybe gone), copies at random lags.
      const previous = new Map(
        ids.map((id) => [id, { active: [] as string[], lags: {} as Record<string, TaskLag> }]),
      );
      for (const task of tasks) {
        if (rnd() < 0.7) previous.get(pick(ids))?.active.push(task.id);
        for (const id of ids)
          if (rnd() < 0.3 && task.changelogs.length > 0)
            previous.get(id)!.lags[task.id] = pick<TaskLag>([0, 50, 20_000, 'unknown']);
      }
      const clients = ids.map((id) => client(id, previous.get(id)!.active, previous.get(id)!.lags));
      let result = assignHighAvailability(clients, tasks, cfg);
      const where = `seed ${seed}`;
      for (let round = 0; ; round++) {
        checkInvariants(result, tasks);
        const warmups = [...result.clients.values()].flatMap((t) => t.warmup);
        expect(warmups.length, where).toBeLessThanOrEqual(cfg.maxWarmupReplicas);
        for (const task of tasks.filter((t) => t.changelogs.length > 0)) {
          const standbys = [...result.clients.values()].filter((t) => t.standby.includes(task.id)).length;
          expect(standbys, `${where}: standbys of ${task.id}`).toBe(
            Math.min(cfg.numStandbyReplicas, clientCount - 1),
          );
        }
        if (!result.probingRebalanceNeeded) break;
        expect(round, `${where}: still probing`).toBeLessThan(20);
        // Probing rebalance: the warm-ups (and standbys) have caught up.
        result = assignHighAvailability(
          feedBack(result, () => 0),
          tasks,
          cfg,
        );
      }
      const statefulActives = [...result.clients.values()].map(
        (t) => t.active.filter((id) => id.startsWith('0_')).length,
      );
      expect(Math.max(...statefulActives) - Math.min(...statefulActives), where).toBeLessThanOrEqual(1);
      expect(
        assignHighAvailability(
          feedBack(result, () => 0),
          tasks,
          cfg,
        ),
        where,
      ).toEqual(result);
    }
  });
});

import { describe, expect, it } from 'vitest';
import { assignTasks, tasksFor } from '../../../src/processor/internals/assignment/sticky-task-assignor.ts';

const ids = (n: number, sub = 0) => Array.from({ length: n }, (_, p) => `${sub}_${p}`);
const sizes = (plan: Map<string, string[]>) => [...plan.values()].map((t) => t.length).sort();

describe('tasksFor', () => {
  it('makes one task per partition of the widest source topic, owning partition p of each', () => {
    const tasks = tasksFor(
      [
        { id: 0, sourceTopics: ['a', 'b'] },
        { id: 1, sourceTopics: ['r'] },
      ],
      (t) => (t === 'a' ? 3 : t === 'b' ? 2 : 4),
    );
    expect(tasks.map((t) => t.id)).toEqual(['0_0', '0_1', '0_2', '1_0', '1_1', '1_2', '1_3']);
    expect(tasks.find((t) => t.id === '0_2')!.inputs).toEqual([{ topic: 'a', partition: 2 }]);
    expect(tasks.find((t) => t.id === '0_1')!.inputs).toEqual([
      { topic: 'a', partition: 1 },
      { topic: 'b', partition: 1 },
    ]);
  });
});

describe('assignTasks', () => {
  it('gives every task to exactly one member, balanced to within one', () => {
    const tasks = [...ids(4, 0), ...ids(4, 1), ...ids(3, 2)];
    const plan = assignTasks(tasks, [
      { memberId: 'a', ownedTasks: [] },
      { memberId: 'b', ownedTasks: [] },
      { memberId: 'c', ownedTasks: [] },
    ]);
    expect([...plan.values()].flat().sort()).toEqual([...tasks].sort());
    expect(sizes(plan)).toEqual([3, 4, 4]);
  });

  it('keeps owned tasks where balance allows (sticky) and moves only what a new member needs', () => {
    const tasks = [...ids(4, 0), ...ids(4, 1)];
    const alone = assignTasks(tasks, [{ memberId: 'a', ownedTasks: [] }]);
    expect(alone.get('a')).toHaveLength(8);
    const plan = assignTasks(tasks, [
      { memberId: 'a', ownedTasks: alone.get('a')! },
      { memberId: 'b', ownedTasks: [] },
    ]);
    expect(sizes(plan)).toEqual([4, 4]);
    // a keeps four of its eight; b gets the other four.
    expect(plan.get('a')!.every((t) => alone.get('a')!.includes(t))).toBe(true);
    // the moved tasks are spread over both sub-topologies
    expect(new Set(plan.get('b')!.map((t) => t.split('_')[0]))).toEqual(new Set(['0', '1']));
  });

  it('spreads each sub-topology over the members, not only the totals', () => {
    for (const [subs, width, members] of [
      [2, 4, 2],
      [2, 4, 3],
      [3, 5, 2],
      [3, 6, 4],
    ] as const) {
      const tasks = Array.from({ length: subs }, (_, s) => ids(width, s)).flat();
      const plan = assignTasks(
        tasks,
        Array.from({ length: members }, (_, i) => ({ memberId: `m${i}`, ownedTasks: [] })),
      );
      expect([...plan.values()].flat().sort()).toEqual([...tasks].sort());
      for (let s = 0; s < subs; s++) {
        const perMember = [...plan.values()].map((list) => list.filter((t) => t.startsWith(`${s}_`)).length);
        expect(
          Math.max(...perMember) - Math.min(...perMember),
          `sub-topology ${s} of ${subs}x${width} over ${members}`,
        ).toBeLessThanOrEqual(1);
      }
    }
  });

  it('hands a dead member’s tasks to the survivors without moving the survivors’ own', () => {
    const tasks = ids(6);
    const plan = assignTasks(tasks, [
      { memberId: 'a', ownedTasks: ['0_0', '0_1'] },
      { memberId: 'b', ownedTasks: ['0_2', '0_3'] },
    ]);
    expect(plan.get('a')).toEqual(expect.arrayContaining(['0_0', '0_1']));
    expect(plan.get('b')).toEqual(expect.arrayContaining(['0_2', '0_3']));
    expect(sizes(plan)).toEqual([3, 3]);
  });

  it('ignores owned tasks that no longer exist and tasks claimed twice', () => {
    const plan = assignTasks(ids(2), [
      { memberId: 'a', ownedTasks: ['0_0', '9_9'] },
      { memberId: 'b', ownedTasks: ['0_0'] },
    ]);
    expect([...plan.values()].flat().sort()).toEqual(['0_0', '0_1']);
    expect(sizes(plan)).toEqual([1, 1]);
  });
});

import { describe, expect, it } from 'vitest';
import { splitOverMembers } from '../../../src/processor/internals/assignment/member-tasks.ts';

describe('splitOverMembers', () => {
  it('balances actives and standbys over an instance’s members, keeping each where it was', () => {
    const split = splitOverMembers(
      { active: ['0_0', '0_1', '0_2', '1_0'], standby: ['0_3', '1_1'], warmup: ['1_2'] },
      [
        { memberId: 'm1', ownedTasks: ['0_2', '1_1'] },
        { memberId: 'm2', ownedTasks: ['0_0'] },
      ],
    );
    expect(split.get('m1')!.active).toContain('0_2');
    expect(split.get('m2')!.active).toContain('0_0');
    expect(split.get('m1')!.standby).toContain('1_1');
    expect([...split.values()].map((m) => m.active.length).sort()).toEqual([2, 2]);
    expect([...split.values()].flatMap((m) => m.standby).sort()).toEqual(['0_3', '1_1', '1_2']);
    expect([...split.values()].flatMap((m) => m.active).sort()).toEqual(['0_0', '0_1', '0_2', '1_0']);
  });

  it('refuses an instance with tasks and no members', () => {
    expect(() => splitOverMembers({ active: ['0_0'], standby: [], warmup: [] }, [])).toThrow(
      /group members by process id/,
    );
    expect(splitOverMembers({ active: [], standby: [], warmup: [] }, []).size).toBe(0);
  });
});

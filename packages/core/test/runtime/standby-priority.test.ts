// Actives first (issue 37, standby-priority.ts): when a stream thread may feed its standbys.
import { describe, expect, it } from 'vitest';
import { ActivesFirst, firstCommitWaitMs } from '../../src/runtime/standby-priority.ts';

describe('ActivesFirst', () => {
  const clock = () => {
    const c = { t: 1_000, now: () => c.t };
    return c;
  };

  it('holds standbys while any active task is created or restored', () => {
    const first = new ActivesFirst(1_100, clock().now);
    expect(first.standbysMayRun(new Set())).toBe(true);
    expect(first.standbysMayRun(new Set(['1_4']))).toBe(false);
  });

  it('holds them after a task starts until it committed once', () => {
    const first = new ActivesFirst(1_100, clock().now);
    first.started('1_4');
    first.started('0_1');
    expect(first.standbysMayRun(new Set())).toBe(false);
    first.committed(['1_4']);
    expect(first.standbysMayRun(new Set())).toBe(false);
    first.committed(['0_1']);
    expect(first.standbysMayRun(new Set())).toBe(true);
  });

  it('stops waiting for a first commit after maxWaitMs (a task with no input never commits)', () => {
    const c = clock();
    const first = new ActivesFirst(1_100, c.now);
    first.started('0_1');
    c.t += 1_099;
    expect(first.standbysMayRun(new Set())).toBe(false);
    c.t += 1;
    expect(first.standbysMayRun(new Set())).toBe(true);
    // A task created meanwhile holds them again.
    expect(first.standbysMayRun(new Set(['0_2']))).toBe(false);
  });

  it('waits one commit interval and a second for a first commit, at most 5 s', () => {
    expect(firstCommitWaitMs(100)).toBe(1_100);
    expect(firstCommitWaitMs(30_000)).toBe(5_000);
  });
});

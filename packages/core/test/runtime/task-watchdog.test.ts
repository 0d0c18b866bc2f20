import { describe, expect, it } from 'vitest';
import { type PartitionProgress, StallDetector } from '../../src/runtime/task-watchdog.ts';

const part = (position: number, committed: number, end: number): PartitionProgress => ({
  topic: 'in',
  partition: 0,
  position,
  committed,
  end,
});
const one = (p: PartitionProgress) => new Map([['0_0', [p]]]);

describe('StallDetector', () => {
  it('reports a task behind on its input whose position has not moved for the timeout', () => {
    const d = new StallDetector(1000);
    expect(d.observe(one(part(5, 5, 9)), 0)).toEqual([]);
    expect(d.observe(one(part(5, 5, 9)), 999)).toEqual([]);
    const stalls = d.observe(one(part(5, 5, 9)), 1000);
    expect(stalls.map((s) => [s.taskId, s.stalledForMs])).toEqual([['0_0', 1000]]);
  });

  it('reports a task that processed everything but stopped committing (the stuck partition of issue 17)', () => {
    const d = new StallDetector(1000);
    d.observe(one(part(9, 3, 9)), 0);
    expect(d.observe(one(part(9, 3, 9)), 1500)).toHaveLength(1);
  });

  it('starts over when the position or the committed offset moves', () => {
    const d = new StallDetector(1000);
    d.observe(one(part(5, 5, 9)), 0);
    d.observe(one(part(6, 5, 9)), 800);
    expect(d.observe(one(part(6, 5, 9)), 1500)).toEqual([]);
    d.observe(one(part(6, 6, 9)), 1700);
    expect(d.observe(one(part(6, 6, 9)), 2600)).toEqual([]);
    expect(d.observe(one(part(6, 6, 9)), 2700)).toHaveLength(1);
  });

  it('leaves alone tasks that are caught up and committed, and empty partitions', () => {
    const d = new StallDetector(1000);
    const tasks = new Map([
      ['0_0', [part(9, 9, 9)]],
      ['0_1', [{ ...part(0, 0, 0), partition: 1 }]],
    ]);
    d.observe(tasks, 0);
    expect(d.observe(tasks, 10_000)).toEqual([]);
  });

  it('forgets a recreated task and tasks that are no longer running', () => {
    const d = new StallDetector(1000);
    d.observe(one(part(5, 5, 9)), 0);
    d.forget('0_0');
    expect(d.observe(one(part(5, 5, 9)), 1500)).toEqual([]);
    d.observe(new Map(), 1600);
    expect(d.observe(one(part(5, 5, 9)), 2000)).toEqual([]);
  });
});

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DeadlineQueue } from '../../src/processor/internals/async-deadlines.ts';

class Call {
  deadline = 0;
  done = false;
  constructor(readonly id: number) {}
}

describe('DeadlineQueue (one timer for a lane timeouts)', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('expires the calls still running at their deadline, in start order, on a single timer', () => {
    const expired: number[] = [];
    const q = new DeadlineQueue<Call>(100, (c) => expired.push(c.id));
    const calls = Array.from({ length: 1_000 }, (_, i) => new Call(i));
    for (const c of calls.slice(0, 500)) q.add(c);
    vi.advanceTimersByTime(50);
    for (const c of calls.slice(500)) q.add(c);
    expect(vi.getTimerCount()).toBe(1);
    // Most finish in time; 3 and 700 do not.
    for (const c of calls) if (c.id !== 3 && c.id !== 700) c.done = true;
    vi.advanceTimersByTime(49);
    expect(expired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(expired).toEqual([3]);
    // The timer moved on to the first call still running (700, started at 50).
    expect(q.nextFire).toBe(calls[700]!.deadline);
    vi.advanceTimersByTime(49);
    expect(expired).toEqual([3]);
    vi.advanceTimersByTime(1);
    expect(expired).toEqual([3, 700]);
    expect(q.size).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('drops finished calls from the front as new ones start, and clear() stops the timer', () => {
    const expired: number[] = [];
    const q = new DeadlineQueue<Call>(1_000, (c) => expired.push(c.id));
    for (let i = 0; i < 5_000; i++) {
      const c = new Call(i);
      q.add(c);
      c.done = true;
    }
    // Each add skipped the finished ones before it: only the last one waits.
    expect(q.size).toBe(1);
    q.add(new Call(5_000));
    q.clear();
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(2_000);
    expect(expired).toEqual([]);
  });
});

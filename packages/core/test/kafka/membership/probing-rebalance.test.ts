import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ProbingRebalance } from '../../../src/kafka/membership/probing-rebalance.ts';

describe('ProbingRebalance', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(1_000_000);
  });
  afterEach(() => vi.useRealTimers());

  it('rejoins at nextRebalanceMs, once', () => {
    const reasons: string[] = [];
    const probe = new ProbingRebalance((r) => reasons.push(r));
    probe.onAssignment({ nextRebalanceMs: 1_000_000 + 600_000 });
    expect(probe.scheduledAt).toBe(1_600_000);
    vi.advanceTimersByTime(599_999);
    expect(reasons).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(reasons).toEqual(['probing rebalance: warm-up replicas may have caught up']);
    expect(probe.scheduledAt).toBeUndefined();
    vi.advanceTimersByTime(10_000_000);
    expect(reasons).toHaveLength(1);
  });

  it('is replaced by every new assignment, and cancelled by one without a probe', () => {
    const reasons: string[] = [];
    const probe = new ProbingRebalance((r) => reasons.push(r));
    probe.onAssignment({ nextRebalanceMs: 1_060_000 });
    probe.onAssignment({ nextRebalanceMs: 1_120_000 });
    vi.advanceTimersByTime(60_000);
    expect(reasons).toEqual([]);
    vi.advanceTimersByTime(60_000);
    expect(reasons).toHaveLength(1);
    probe.onAssignment({ nextRebalanceMs: 1_300_000 });
    probe.onAssignment({});
    vi.advanceTimersByTime(1_000_000);
    expect(reasons).toHaveLength(1);
  });

  it('rejoins at once when the time is past (the assignment arrived late)', () => {
    const reasons: string[] = [];
    const probe = new ProbingRebalance((r) => reasons.push(r));
    probe.onAssignment({ nextRebalanceMs: 900_000 });
    vi.advanceTimersByTime(0);
    expect(reasons).toHaveLength(1);
    probe.onAssignment({ nextRebalanceMs: 2_000_000 });
    probe.cancel();
    vi.advanceTimersByTime(2_000_000);
    expect(reasons).toHaveLength(1);
  });
});

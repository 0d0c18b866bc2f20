import { describe, expect, it } from 'vitest';
import { JoinWindows } from '../../src/index.ts';

describe('JoinWindows (Kafka Streams semantics)', () => {
  it('is symmetric with the time difference, no grace by default', () => {
    const w = JoinWindows.ofTimeDifferenceWithNoGrace(10);
    expect([w.beforeMs, w.afterMs, w.graceMs, w.sizeMs, w.retentionMs]).toEqual([10, 10, 0, 20, 20]);
  });

  it('keeps the grace and lets before/after make it asymmetric', () => {
    const w = JoinWindows.ofTimeDifferenceAndGrace(10, 5).before(2).after(7);
    expect([w.beforeMs, w.afterMs, w.graceMs, w.sizeMs, w.retentionMs]).toEqual([2, 7, 5, 9, 14]);
  });

  it('allows a negative bound while the window is not negative', () => {
    expect(JoinWindows.ofTimeDifferenceWithNoGrace(5).before(-3).sizeMs).toBe(2);
    expect(() => JoinWindows.ofTimeDifferenceWithNoGrace(5).before(-6)).toThrow(/must not be negative/);
  });

  it('refuses negative or fractional durations', () => {
    expect(() => JoinWindows.ofTimeDifferenceWithNoGrace(-1)).toThrow(/time difference/);
    expect(() => JoinWindows.ofTimeDifferenceAndGrace(1, -1)).toThrow(/grace/);
    expect(() => JoinWindows.ofTimeDifferenceWithNoGrace(1).after(1.5)).toThrow(/whole number/);
  });
});

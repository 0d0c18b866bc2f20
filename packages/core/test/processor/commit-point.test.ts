import { describe, expect, it } from 'vitest';
import { CommitPoint } from '../../src/processor/internals/commit-point.ts';

describe('CommitPoint', () => {
  it('rolls back to the offsets and stream time of the last commit, not to the start', () => {
    const point = new CommitPoint();
    point.consume('in', 5);
    point.advanceStreamTime(1_000);
    point.needsCommit = true;
    point.committed(true);
    expect(point.commitNeeded).toBe(false);

    point.consume('in', 9);
    point.consume('other', 2);
    point.advanceStreamTime(5_000);
    point.advanceStreamTime(3_000);
    expect(point.streamTimeMs).toBe(5_000);
    point.wantsCommit = true;
    point.rollback();

    expect(point.consumedOffsets(3)).toEqual([{ topic: 'in', partition: 3, offset: 5 }]);
    expect(point.streamTimeMs).toBe(1_000);
    expect(point.wantsCommit).toBe(false);
  });

  it('moves a skipped offset forward only, and needs a commit when it moved', () => {
    const point = new CommitPoint();
    point.consume('in', 10);
    expect(point.skipTo('in', 8)).toBe(false);
    expect(point.commitNeeded).toBe(false);
    expect(point.skipTo('in', 12)).toBe(true);
    expect(point.commitNeeded).toBe(true);
    expect(point.consumedOffsets(0)).toEqual([{ topic: 'in', partition: 0, offset: 12 }]);
  });

  it('still needs a commit when the stores moved on but the offsets did not reach Kafka', () => {
    const point = new CommitPoint();
    point.consume('in', 3);
    point.needsCommit = true;
    point.committed(false);
    expect(point.needsCommit).toBe(false);
    expect(point.commitNeeded).toBe(true);
    point.committed(true);
    expect(point.commitNeeded).toBe(false);
  });
});

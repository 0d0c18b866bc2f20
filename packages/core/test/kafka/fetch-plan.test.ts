// The partition fetcher's decisions, without a broker: which partitions go into which broker's
// next fetch, what a fetched partition hands out and where its position goes, what an error code
// asks for.
import { describe, expect, it } from 'vitest';
import {
  backoffMs,
  ErrorCode,
  type FetchedRecordLike,
  fetchedEndOffset,
  fetchedRange,
  newPartitionState,
  nextRetryAt,
  partitionErrorAction,
  planFetches,
  rotate,
} from '../../src/kafka/fetch-plan.ts';
import { fetchVersion } from '../../src/kafka/fetch-request.ts';

const record = (offset: number, batch: [number, number], control = false): FetchedRecordLike => ({
  offset: String(offset),
  isControlRecord: control,
  batchContext: { firstOffset: String(batch[0]), lastOffsetDelta: batch[1] - batch[0] },
});

describe('planFetches', () => {
  const a0 = () => newPartitionState('a', 0, 5);
  const leaders = new Map([
    ['a-0', 1],
    ['a-1', 2],
    ['b-0', 1],
  ]);
  const leaderOf = (s: { topic: string; partition: number }) => leaders.get(`${s.topic}-${s.partition}`);

  it('groups the fetchable partitions by their leader', () => {
    const states = [a0(), newPartitionState('a', 1, 0), newPartitionState('b', 0, 7)];
    const plan = planFetches(states, leaderOf, new Set(), 0);
    expect([...plan.byBroker].map(([id, ps]) => [id, ps.map((p) => `${p.topic}-${p.partition}`)])).toEqual([
      [1, ['a-0', 'b-0']],
      [2, ['a-1']],
    ]);
    expect(plan.leaderless).toEqual([]);
  });

  it('leaves out partitions without a position, paused, busy or backing off, and brokers with a fetch out', () => {
    const noPosition = newPartitionState('a', 0);
    const paused = { ...a0(), paused: true };
    const busy = { ...a0(), busy: true };
    const backingOff = { ...a0(), retryAt: 1_000 };
    expect(planFetches([noPosition, paused, busy, backingOff], leaderOf, new Set(), 999).byBroker.size).toBe(
      0,
    );
    expect(planFetches([backingOff], leaderOf, new Set(), 1_000).byBroker.get(1)).toHaveLength(1);
    expect(planFetches([a0(), newPartitionState('a', 1, 0)], leaderOf, new Set([1]), 0).byBroker.has(1)).toBe(
      false,
    );
  });

  it('reports fetchable partitions whose leader is unknown (metadata to refresh)', () => {
    const unknown = newPartitionState('c', 0, 0);
    const plan = planFetches([unknown, a0()], leaderOf, new Set([1]), 0);
    expect(plan.leaderless).toEqual([unknown]);
  });

  it('wakes up for the earliest back-off of a partition that could be fetched', () => {
    const states = [
      { ...a0(), retryAt: 500 },
      { ...a0(), retryAt: 300, paused: true },
      { ...a0(), retryAt: 400 },
    ];
    expect(nextRetryAt(states, 100)).toBe(400);
    expect(nextRetryAt(states, 600)).toBeUndefined();
  });
});

describe('partitionErrorAction', () => {
  it('refreshes metadata when a leader moved or is being elected', () => {
    for (const code of [
      ErrorCode.NOT_LEADER_OR_FOLLOWER,
      ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
      ErrorCode.LEADER_NOT_AVAILABLE,
      ErrorCode.FENCED_LEADER_EPOCH,
      ErrorCode.UNKNOWN_LEADER_EPOCH,
    ])
      expect(partitionErrorAction(code, true)).toBe('refresh-metadata');
  });

  it('resets an out-of-range position, retries what Kafka calls retriable, hands the rest over', () => {
    expect(partitionErrorAction(ErrorCode.NONE, false)).toBe('none');
    expect(partitionErrorAction(ErrorCode.OFFSET_OUT_OF_RANGE, false)).toBe('out-of-range');
    expect(partitionErrorAction(7 /* REQUEST_TIMED_OUT */, true)).toBe('retry');
    expect(partitionErrorAction(29 /* TOPIC_AUTHORIZATION_FAILED */, false)).toBe('fatal');
  });

  it('backs off doubling up to a cap', () => {
    expect([1, 2, 3, 10, 100].map((n) => backoffMs(n, 100, 1_000))).toEqual([100, 200, 400, 1_000, 1_000]);
  });
});

describe('fetchedRange', () => {
  it('hands out the records at or past the fetch offset, without control records', () => {
    const records = [record(3, [3, 5]), record(4, [3, 5]), record(5, [3, 5]), record(6, [6, 6], true)];
    const range = fetchedRange(4, records)!;
    expect(range.messages.map((r) => r.offset)).toEqual(['4', '5']);
    expect(range.firstOffset).toBe(4);
    // The commit marker at 6 is covered: the position may move past it.
    expect(range.lastOffset).toBe(6);
  });

  it('covers a batch tail that compaction removed', () => {
    const range = fetchedRange(0, [record(0, [0, 9]), record(4, [0, 9])])!;
    expect(range.lastOffset).toBe(9);
  });

  it('moves past a batch with no record left at or past the fetch offset', () => {
    expect(fetchedRange(5, [record(2, [0, 9])])).toEqual({ messages: [], firstOffset: 5, lastOffset: 9 });
  });

  it('gives nothing for an empty answer or one that ends before the fetch offset', () => {
    expect(fetchedRange(5, [])).toBeUndefined();
    expect(fetchedRange(5, [record(3, [3, 4])])).toBeUndefined();
  });

  it('gives an empty range of markers and aborted records only', () => {
    const range = fetchedRange(10, [record(10, [10, 11], true), record(11, [10, 11], true)])!;
    expect(range).toEqual({ messages: [], firstOffset: 10, lastOffset: 11 });
  });
});

describe('fetchedEndOffset', () => {
  it('is the last stable offset under read_committed, else the high watermark', () => {
    expect(fetchedEndOffset(true, 10, 7)).toBe(7);
    expect(fetchedEndOffset(false, 10, 7)).toBe(10);
    expect(fetchedEndOffset(true, 10, undefined)).toBe(10);
    expect(fetchedEndOffset(true, 10, -1)).toBe(10);
  });
});

describe('rotate', () => {
  it('starts each fetch at the next partition', () => {
    expect([0, 1, 2, 3].map((t) => rotate(['a', 'b', 'c'], t).join(''))).toEqual([
      'abc',
      'bca',
      'cab',
      'abc',
    ]);
    expect(rotate([], 3)).toEqual([]);
  });
});

describe('fetchVersion', () => {
  it('sends the highest version both sides speak, and names a broker too old', () => {
    expect(fetchVersion(17, 'b:9092')).toBe(11);
    expect(fetchVersion(8, 'b:9092')).toBe(8);
    expect(() => fetchVersion(3, 'b:9092')).toThrow(/broker b:9092 speaks Fetch up to v3; kstreams needs v4/);
  });
});

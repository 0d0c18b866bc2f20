import { describe, expect, it } from 'vitest';
import {
  maxFetchWaitMs,
  PartitionGroup,
  type PartitionGroupOptions,
} from '../../src/processor/internals/partition-group.ts';
import type { InputRecord } from '../../src/processor/internals/records.ts';

const A = { topic: 'left', partition: 3 };
const B = { topic: 'right', partition: 3 };

function rec(tp: { topic: string; partition: number }, offset: number, timestamp: number): InputRecord {
  return { ...tp, offset, key: null, value: Buffer.from(`${tp.topic}@${offset}`), timestamp };
}

/** The runtime's case: fetches tell every partition's lag, so a wait for data on the broker has no bound. */
function group(maxTaskIdleMs = 0, maxFetchWaitMs?: number, extra: Partial<PartitionGroupOptions> = {}) {
  const g = new PartitionGroup([A, B], { maxTaskIdleMs, maxFetchWaitMs, ...extra });
  g.clear([
    { ...A, offset: 0 },
    { ...B, offset: 0 },
  ]);
  return g;
}

function fill(g: PartitionGroup, tp: typeof A, records: Array<[offset: number, timestamp: number]>) {
  const q = g.queue(tp.topic, tp.partition)!;
  for (const [offset, ts] of records) g.add(q, rec(tp, offset, ts));
}

function drain(g: PartitionGroup, now = 0): string[] {
  const out: string[] = [];
  while (g.readyToProcess(now)) out.push(g.nextRecord()!.record.value!.toString());
  return out;
}

describe('PartitionGroup', () => {
  it('takes the head with the lowest timestamp across partitions', () => {
    const g = group();
    fill(g, A, [
      [0, 10],
      [1, 30],
      [2, 50],
    ]);
    fill(g, B, [
      [0, 20],
      [1, 40],
    ]);
    g.updateEndOffset(A.topic, A.partition, 3);
    g.updateEndOffset(B.topic, B.partition, 2);
    expect(drain(g)).toEqual(['left@0', 'right@0', 'left@1', 'right@1', 'left@2']);
    expect(g.numBuffered).toBe(0);
  });

  it('within a partition keeps offset order, also for an out-of-order timestamp', () => {
    const g = group();
    fill(g, A, [
      [0, 50],
      [1, 5],
    ]);
    fill(g, B, [[0, 20]]);
    g.updateEndOffset(A.topic, A.partition, 2);
    g.updateEndOffset(B.topic, B.partition, 1);
    expect(drain(g)).toEqual(['right@0', 'left@0', 'left@1']);
  });

  it('waits for a partition whose records are known to be on the broker, then goes on', () => {
    const g = group(0, 1_000);
    fill(g, A, [[0, 10]]);
    g.updateEndOffset(A.topic, A.partition, 1);
    g.updateEndOffset(B.topic, B.partition, 1); // B has a record not fetched yet
    expect(g.readyToProcess(0)).toBe(false);
    expect(g.readyToProcess(999)).toBe(false);
    fill(g, B, [[0, 5]]);
    expect(g.enforcedProcessingTotal).toBe(0);
    expect(drain(g, 1_000)).toEqual(['right@0', 'left@0']);
  });

  it('without the fetch hook (maxFetchWaitMs set): waits for an unknown lag, but not beyond the bound', () => {
    const g = new PartitionGroup([A, B], { maxTaskIdleMs: 0, maxFetchWaitMs: 200 });
    fill(g, A, [[0, 10]]);
    expect(g.readyToProcess(1_000)).toBe(false);
    expect(g.readyToProcess(1_199)).toBe(false);
    expect(g.readyToProcess(1_200)).toBe(true);
    expect(g.enforcedProcessingTotal).toBe(1);
  });

  it('without the fetch hook: waits for data on the broker at least maxTaskIdleMs, however short the fetches', () => {
    expect(maxFetchWaitMs(0, 100)).toBe(1_000);
    expect(maxFetchWaitMs(0, 500)).toBe(5_000);
    expect(maxFetchWaitMs(8_000, 100)).toBe(8_000);
    // A task that moved: the other partition's backlog is known (end offsets) but not fetched yet.
    const g = new PartitionGroup([A, B], {
      maxTaskIdleMs: 8_000,
      maxFetchWaitMs: maxFetchWaitMs(8_000, 100),
    });
    fill(g, A, [[0, 10]]);
    g.updateEndOffset(B.topic, B.partition, 5);
    expect(g.readyToProcess(1_000)).toBe(false);
    expect(g.readyToProcess(8_999)).toBe(false);
    expect(g.readyToProcess(9_000)).toBe(true);
  });

  it('restartWaits: a wait begun before a rebalance starts again', () => {
    const g = group(500);
    fill(g, A, [[0, 10]]);
    g.updateEndOffset(A.topic, A.partition, 1);
    g.updateEndOffset(B.topic, B.partition, 0);
    expect(g.readyToProcess(100)).toBe(false);
    g.restartWaits();
    expect(g.readyToProcess(700)).toBe(false);
    expect(g.readyToProcess(1_199)).toBe(false);
    expect(g.readyToProcess(1_200)).toBe(true);
  });

  it('maxTaskIdleMs 0: a caught-up empty partition does not hold the others', () => {
    const g = group(0);
    fill(g, A, [[0, 10]]);
    g.updateEndOffset(A.topic, A.partition, 1);
    g.updateEndOffset(B.topic, B.partition, 0);
    expect(drain(g)).toEqual(['left@0']);
  });

  it('maxTaskIdleMs > 0: waits that long for a caught-up empty partition, then processes', () => {
    const g = group(500);
    fill(g, A, [
      [0, 10],
      [1, 30],
    ]);
    g.updateEndOffset(A.topic, A.partition, 2);
    g.updateEndOffset(B.topic, B.partition, 0);
    expect(g.readyToProcess(100)).toBe(false);
    // Data arriving within the idle time is taken in timestamp order.
    fill(g, B, [[0, 20]]);
    g.updateEndOffset(B.topic, B.partition, 1);
    expect(drain(g, 200)).toEqual(['left@0', 'right@0']);
    // B is empty again: the idle time starts anew.
    expect(g.readyToProcess(699)).toBe(false);
    expect(g.enforcedProcessingTotal).toBe(0);
    expect(drain(g, 700)).toEqual(['left@1']);
    expect(g.enforcedProcessingTotal).toBe(1);
  });

  it('maxTaskIdleMs -1 never waits', () => {
    const g = group(-1);
    fill(g, A, [[0, 10]]);
    g.updateEndOffset(B.topic, B.partition, 9);
    expect(drain(g)).toEqual(['left@0']);
  });

  it('a rollback empties the queues and sets the fetch positions back', () => {
    const g = group();
    fill(g, A, [
      [0, 10],
      [1, 11],
    ]);
    fill(g, B, [[0, 12]]);
    g.clear([
      { ...A, offset: 1 },
      { ...B, offset: 0 },
    ]);
    expect(g.numBuffered).toBe(0);
    expect(g.queue(A.topic, A.partition)!.fetchPosition).toBe(1);
    expect(g.readyToProcess(0)).toBe(false);
  });

  it('a queue keeps its order across compactions of its array', () => {
    const g = new PartitionGroup([A], { maxTaskIdleMs: 0, maxFetchWaitMs: 1_000 });
    const q = g.queue(A.topic, A.partition)!;
    const seen: number[] = [];
    let next = 0;
    for (let round = 0; round < 5; round++) {
      for (let i = 0; i < 1_500; i++) g.add(q, rec(A, next++, next));
      for (let i = 0; i < 1_200; i++) seen.push(g.nextRecord()!.record.offset);
    }
    while (g.numBuffered > 0) seen.push(g.nextRecord()!.record.offset);
    expect(seen).toEqual([...Array(next).keys()]);
  });

  it('holds fetched messages as fetched and makes each a record only when it is taken', () => {
    const made: number[] = [];
    const reader = {
      timestamp: (m: unknown) => (m as { ts: number }).ts,
      record: (topic: string, partition: number, m: unknown): InputRecord => {
        const { at, ts } = m as { at: number; ts: number };
        made.push(at);
        return {
          topic,
          partition,
          offset: at,
          key: null,
          value: Buffer.from(`${topic}@${at}`),
          timestamp: ts,
        };
      },
    };
    const g = new PartitionGroup([A, B], { maxTaskIdleMs: 0, maxFetchWaitMs: 1_000, reader });
    g.addFetched(g.queue(A.topic, A.partition)!, { at: 7, ts: 40 }, 7);
    g.addFetched(g.queue(B.topic, B.partition)!, { at: 2, ts: 20 }, 2);
    expect(g.queue(A.topic, A.partition)!.fetchPosition).toBe(8);
    expect(made).toEqual([]);
    expect(g.nextRecord()!.record).toMatchObject({ topic: 'right', partition: 3, offset: 2, timestamp: 20 });
    expect(made).toEqual([2]);
    expect(g.nextRecord()!.record.value!.toString()).toBe('left@7');
    expect(made).toEqual([2, 7]);
  });

  describe("Kafka Streams' decision table for an empty partition", () => {
    const HOUR = 3_600_000;

    it('lag unknown (no end offset seen yet): waits, without a deadline', () => {
      const g = group(500);
      fill(g, A, [[0, 10]]);
      g.updateEndOffset(A.topic, A.partition, 1);
      expect(g.queue(B.topic, B.partition)!.knownLag()).toBe(-1);
      expect(g.readyToProcess(0)).toBe(false);
      expect(g.readyToProcess(HOUR)).toBe(false);
      expect(g.enforcedProcessingTotal).toBe(0);
      // The first fetch response, empty, tells lag 0: from then on maxTaskIdleMs counts.
      g.updateEndOffset(B.topic, B.partition, 0, 0);
      expect(g.readyToProcess(HOUR)).toBe(false);
      expect(g.readyToProcess(HOUR + 499)).toBe(false);
      expect(drain(g, HOUR + 500)).toEqual(['left@0']);
      expect(g.enforcedProcessingTotal).toBe(1);
    });

    it('lag known above 0: keeps waiting past maxTaskIdleMs and any other deadline', () => {
      const waits: Array<[string, number]> = [];
      const g = group(500, undefined, { onWaitForLag: (q, lag) => waits.push([q.topic, lag]) });
      fill(g, A, [
        [0, 10],
        [1, 30],
      ]);
      g.updateEndOffset(A.topic, A.partition, 2);
      g.updateEndOffset(B.topic, B.partition, 4); // 4 records on the broker, none fetched
      for (const now of [0, 499, 500, 10_000, HOUR, 24 * HOUR]) expect(g.readyToProcess(now)).toBe(false);
      // Logged once, when the wait began.
      expect(waits).toEqual([['right', 4]]);
      // The records come: taken in timestamp order, nothing enforced.
      fill(g, B, [[0, 20]]);
      expect(g.nextRecord()!.record.value!.toString()).toBe('left@0');
      expect(g.readyToProcess(24 * HOUR)).toBe(true);
      expect(g.nextRecord()!.record.value!.toString()).toBe('right@0');
      // B is empty again with 3 still on the broker: waiting again.
      expect(g.readyToProcess(24 * HOUR + 1)).toBe(false);
      expect(g.enforcedProcessingTotal).toBe(0);
    });

    it('lag known 0: waits maxTaskIdleMs from when the partition was found empty, then enforces', () => {
      const episodes: Array<[string[], number]> = [];
      const g = group(500, undefined, {
        onEnforcedProcessing: (qs, now) => episodes.push([qs.map((q) => q.topic), now]),
      });
      fill(g, A, [
        [0, 10],
        [1, 20],
        [2, 30],
      ]);
      g.updateEndOffset(A.topic, A.partition, 3);
      g.updateEndOffset(B.topic, B.partition, 0);
      expect(g.readyToProcess(1_000)).toBe(false); // found empty: deadline 1,500
      expect(g.readyToProcess(1_499)).toBe(false);
      expect(drain(g, 1_500)).toEqual(['left@0', 'left@1', 'left@2']);
      expect(g.enforcedProcessingTotal).toBe(3);
      expect(episodes).toEqual([[['right'], 1_500]]);
    });

    it('lag known 0 with maxTaskIdleMs 0: processes at once, counted as enforced', () => {
      const g = group(0);
      fill(g, A, [[0, 10]]);
      g.updateEndOffset(A.topic, A.partition, 1);
      g.updateEndOffset(B.topic, B.partition, 0);
      expect(drain(g, 7)).toEqual(['left@0']);
      expect(g.enforcedProcessingTotal).toBe(1);
    });

    it('maxTaskIdleMs -1: never waits, whatever the lag', () => {
      for (const end of [undefined, 0, 9]) {
        const g = group(-1);
        fill(g, A, [[0, 10]]);
        if (end !== undefined) g.updateEndOffset(B.topic, B.partition, end);
        expect(drain(g)).toEqual(['left@0']);
      }
    });

    it('an empty fetch past the queue position (transaction markers) means lag 0', () => {
      const g = group(0);
      fill(g, A, [[0, 10]]);
      g.updateEndOffset(A.topic, A.partition, 1);
      const b = g.queue(B.topic, B.partition)!;
      fill(g, B, [[0, 5]]);
      expect(g.nextRecord()!.record.value!.toString()).toBe('right@0');
      // Record 0 was followed by a commit marker at 1: the end is 2, the queue's position 1.
      g.updateEndOffset(B.topic, B.partition, 2);
      expect(b.knownLag()).toBe(1);
      expect(g.readyToProcess(0)).toBe(false);
      // The consumer's empty fetch from offset 2 shows it stands at the end.
      g.updateEndOffset(B.topic, B.partition, 2, 2);
      expect(b.knownLag()).toBe(0);
      expect(drain(g)).toEqual(['left@0']);
      // A rollback forgets it: the queue is fetched again from its committed position.
      g.clear([
        { ...A, offset: 0 },
        { ...B, offset: 0 },
      ]);
      expect(b.knownLag()).toBe(2);
    });

    it('the end offset follows the latest fetch, also downwards (the last stable offset under read_committed)', () => {
      const g = group(0);
      const b = g.queue(B.topic, B.partition)!;
      g.updateEndOffset(B.topic, B.partition, 10); // the admin's view at the start
      expect(b.knownLag()).toBe(10);
      g.updateEndOffset(B.topic, B.partition, 0, 0); // a fetch: nothing stable to read
      expect(b.knownLag()).toBe(0);
      g.updateEndOffset(B.topic, B.partition, -1);
      expect(b.knownLag()).toBe(0);
    });
  });
});

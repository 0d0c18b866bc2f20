import { describe, expect, it } from 'vitest';
import { type FetchedPartition, hideAbortedRecords } from '../../src/kafka/read-committed.ts';

const ABORT = Buffer.from([0, 0, 0, 0]);
const COMMIT = Buffer.from([0, 0, 0, 1]);

/** A fetched partition from [offset, producer, what] rows; `data` rows are transactional records. */
function fetched(
  rows: Array<[number, string, 'data' | 'abort' | 'commit' | 'plain']>,
  abortedTransactions: Array<{ producerId: string; firstOffset: string }>,
): FetchedPartition {
  return {
    abortedTransactions,
    messages: rows.map(([offset, producerId, what]) => ({
      offset: String(offset),
      key: what === 'abort' ? ABORT : what === 'commit' ? COMMIT : Buffer.from(`k${offset}`),
      isControlRecord: what === 'abort' || what === 'commit',
      batchContext: { producerId, inTransaction: what !== 'plain' },
    })),
  };
}

/** Offsets of the records a consumer gets: neither control records nor hidden ones. */
const visible = (p: FetchedPartition) =>
  p.messages.filter((m) => !m.isControlRecord).map((m) => Number(m.offset));

describe('hideAbortedRecords (read_committed)', () => {
  it('hides two interleaved aborted transactions listed in abort order, not first-offset order', () => {
    // Producer 5 wrote 0-1, producer 6 wrote 2-3; 6 aborted first (marker 4), then 5 (marker 5).
    const p = fetched(
      [
        [0, '5', 'data'],
        [1, '5', 'data'],
        [2, '6', 'data'],
        [3, '6', 'data'],
        [4, '6', 'abort'],
        [5, '5', 'abort'],
        [6, '5', 'data'],
        [7, '5', 'commit'],
      ],
      [
        { producerId: '6', firstOffset: '2' },
        { producerId: '5', firstOffset: '0' },
      ],
    );
    hideAbortedRecords(p);
    expect(visible(p)).toEqual([6]);
    expect(p.abortedTransactions).toEqual([]);
  });

  it('starts every aborted transaction that began before the fetched range at its first record', () => {
    // The fetch starts at 10, inside two aborted transactions that began at 2 and 4.
    const p = fetched(
      [
        [10, '6', 'data'],
        [11, '5', 'data'],
        [12, '6', 'abort'],
        [13, '5', 'abort'],
      ],
      [
        { producerId: '5', firstOffset: '2' },
        { producerId: '6', firstOffset: '4' },
      ],
    );
    hideAbortedRecords(p);
    expect(visible(p)).toEqual([]);
  });

  it('keeps committed transactions and plain records of other producers, and a producer’s later transaction', () => {
    const p = fetched(
      [
        [0, '5', 'data'],
        [1, '7', 'plain'],
        [2, '6', 'data'],
        [3, '5', 'abort'],
        [4, '6', 'commit'],
        [5, '5', 'data'],
        [6, '5', 'commit'],
      ],
      [{ producerId: '5', firstOffset: '0' }],
    );
    hideAbortedRecords(p);
    expect(visible(p)).toEqual([1, 2, 5]);
  });

  it('leaves a partition without aborted transactions as it is', () => {
    const p = fetched(
      [
        [0, '5', 'data'],
        [1, '5', 'commit'],
      ],
      [],
    );
    hideAbortedRecords(p);
    expect(visible(p)).toEqual([0]);
  });
});

import { describe, expect, it } from 'vitest';
import { type FetchedPartition, fetchedEnd, fetchLagInstalled } from '../../src/kafka/fetch-lag.ts';

const fetched = (f: Partial<FetchedPartition>): FetchedPartition => ({
  topic: 't',
  partition: 0,
  fetchOffset: 5,
  highWatermark: 12,
  lastStableOffset: 9,
  records: 0,
  ...f,
});

describe('fetch lag', () => {
  it("reaches kafkajs' modules (else a task's wait for data on the broker falls back to a bound)", () => {
    expect(fetchLagInstalled()).toBe(true);
  });

  it('the end is the last stable offset under read_committed, the high watermark otherwise', () => {
    expect(fetchedEnd(fetched({}), true)).toBe(9);
    expect(fetchedEnd(fetched({}), false)).toBe(12);
    // A response without it (older versions): the high watermark.
    expect(fetchedEnd(fetched({ lastStableOffset: undefined }), true)).toBe(12);
    // -1: the broker did not know it.
    expect(fetchedEnd(fetched({ lastStableOffset: -1 }), true)).toBeUndefined();
    expect(fetchedEnd(fetched({ highWatermark: Number.NaN }), false)).toBeUndefined();
  });
});

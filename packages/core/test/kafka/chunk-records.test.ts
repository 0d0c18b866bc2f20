import { describe, expect, it } from 'vitest';
import { chunkRecords } from '../../src/kafka/producers.ts';
import type { OutputRecord } from '../../src/processor/internals/records.ts';

const rec = (i: number, valueBytes = 10): OutputRecord => ({
  topic: 't',
  key: Buffer.from(String(i)),
  value: Buffer.alloc(valueBytes),
  timestamp: 0,
});

describe('chunkRecords', () => {
  it('keeps order and splits at 1,000 records per request', () => {
    const records = Array.from({ length: 2345 }, (_, i) => rec(i));
    const chunks = chunkRecords(records);
    expect(chunks.map((c) => c.length)).toEqual([1000, 1000, 345]);
    expect(chunks.flat()).toEqual(records);
  });

  it('splits before a request would pass 512 KiB, and never leaves a record out', () => {
    const records = Array.from({ length: 10 }, (_, i) => rec(i, 200 * 1024));
    const chunks = chunkRecords(records);
    expect(chunks.every((c) => c.length <= 2)).toBe(true);
    expect(chunks.flat()).toHaveLength(10);
    // A single record larger than the bound still goes out (the broker judges it).
    expect(chunkRecords([rec(0, 2 * 1024 * 1024)])).toHaveLength(1);
  });
});

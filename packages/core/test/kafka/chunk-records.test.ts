import { describe, expect, it } from 'vitest';
import { linearGroupingInstalled } from '../../src/kafka/producer-grouping.ts';
import { chunkRecords } from '../../src/kafka/producers.ts';
import type { OutputRecord } from '../../src/processor/internals/records.ts';

const rec = (i: number, valueBytes = 10): OutputRecord => ({
  topic: 't',
  key: Buffer.from(String(i)),
  value: Buffer.alloc(valueBytes),
  timestamp: 0,
});

describe('chunkRecords', () => {
  it('keeps order and splits at the 512 KiB bound (64 bytes counted per record), not at 1,000 records', () => {
    // kafkajs groups a call's messages in linear time here (the record bound of 1,000 is for
    // a kafkajs loaded before @kstreams/core, whose grouping is quadratic).
    expect(linearGroupingInstalled()).toBe(true);
    const records = Array.from({ length: 20_000 }, (_, i) => rec(i % 10, 0));
    const chunks = chunkRecords(records);
    const perChunk = Math.floor((512 * 1024) / (1 + 64));
    expect(chunks.map((c) => c.length)).toEqual([perChunk, perChunk, 20_000 - 2 * perChunk]);
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

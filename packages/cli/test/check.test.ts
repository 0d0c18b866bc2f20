import { describe, expect, it } from 'vitest';
import { formatReport } from '../src/format.ts';
import { type CheckedRecord, checkRecords, decodeValue, parseExpected, runCli } from '../src/index.ts';

/** Records of one partition, offsets in order, from `key=value` pairs. */
const recs = (...pairs: Array<[string, number | string | null]>): CheckedRecord[] =>
  pairs.map(([key, value], offset) => ({ key, value, partition: 0, offset }));

describe('checkRecords --expect-sequences', () => {
  it('passes 1..n per key, keys interleaved', () => {
    const r = checkRecords(recs(['a', 1], ['b', 1], ['a', 2], ['a', 3], ['b', 2]), { expectSequences: true });
    expect(r.ok).toBe(true);
    expect(r).toMatchObject({ records: 5, keys: 2 });
  });

  it('finds a repeated value as a duplicate, with the record that repeats it', () => {
    const r = checkRecords(recs(['a', 1], ['a', 2], ['a', 2], ['a', 3]), { expectSequences: true });
    expect(r.ok).toBe(false);
    expect(r.counts.duplicate).toBe(1);
    expect(r.examples.duplicate[0]).toMatchObject({ key: 'a', offset: 2 });
    expect(r.counts.gap).toBe(0);
  });

  it('finds a replay (an at_least_once restart recounting) as duplicates', () => {
    const r = checkRecords(recs(['a', 1], ['a', 2], ['a', 3], ['a', 2], ['a', 3], ['a', 4]), {
      expectSequences: true,
    });
    expect(r.counts.duplicate).toBe(2);
    expect(r.counts.outOfOrder).toBe(0);
  });

  it('finds a hole below the highest value as a gap, naming the first missing value', () => {
    const r = checkRecords(recs(['a', 1], ['a', 2], ['a', 5], ['b', 1]), { expectSequences: true });
    expect(r.counts.gap).toBe(2);
    expect(r.keysAffected.gap).toBe(1);
    expect(r.examples.gap[0]!.detail).toContain('the first is 3');
  });

  it('a value filled in late is out of order, not a gap', () => {
    const r = checkRecords(recs(['a', 1], ['a', 3], ['a', 2]), { expectSequences: true });
    expect(r.counts).toMatchObject({ gap: 0, outOfOrder: 1, duplicate: 0 });
  });

  it('a value that is no count is a mismatch', () => {
    const r = checkRecords(recs(['a', 'x'], ['a', 0]), { expectSequences: true });
    expect(r.counts.mismatch).toBe(2);
  });
});

describe('checkRecords --against', () => {
  const expected = new Map<string, number | string>([
    ['a', 3],
    ['b', 2],
    ['c', 1],
  ]);

  it('passes when every key ends on its expected value', () => {
    const r = checkRecords(recs(['a', 3], ['b', 2], ['c', 1]), { expected });
    expect(r.ok).toBe(true);
  });

  it('a key short of its value or absent is a loss of the difference', () => {
    const r = checkRecords(recs(['a', 1], ['b', 2]), { expected });
    expect(r.counts.loss).toBe(2 + 1);
    expect(r.examples.loss.map((f) => f.key)).toEqual(['a', 'c']);
  });

  it('a key above its value is excess; a key nobody expected is unexpected', () => {
    const r = checkRecords(recs(['a', 4], ['b', 2], ['c', 1], ['z', 1]), { expected });
    expect(r.counts).toMatchObject({ excess: 1, unexpected: 1, loss: 0 });
  });

  it('with sequences, the final value is the highest (a replayed older count may come last)', () => {
    const r = checkRecords(recs(['a', 1], ['a', 2], ['a', 3], ['a', 2], ['b', 1], ['b', 2], ['c', 1]), {
      expectSequences: true,
      expected,
    });
    expect(r.counts).toMatchObject({ duplicate: 1, loss: 0, excess: 0 });
  });

  it('text values compare as text', () => {
    const r = checkRecords(recs(['a', 'x']), { expected: new Map([['a', 'y']]) });
    expect(r.counts.mismatch).toBe(1);
  });
});

describe('checkRecords --expect-increasing (a count written through the record cache)', () => {
  const expected = new Map<string, number>([
    ['a', 6],
    ['b', 2],
  ]);

  it('passes counts that skip values but always increase, and checks the last against the expected', () => {
    const r = checkRecords(recs(['a', 1], ['b', 2], ['a', 5], ['a', 6]), {
      expectIncreasing: true,
      expected,
    });
    expect(r.ok).toBe(true);
    expect(r.mode).toBe('increasing');
  });

  it('a duplicated last record of a key is a duplicate', () => {
    const r = checkRecords(recs(['a', 5], ['a', 6], ['b', 2], ['a', 6]), {
      expectIncreasing: true,
      expected,
    });
    expect(r.counts).toMatchObject({ duplicate: 1, loss: 0, excess: 0 });
    expect(r.examples.duplicate[0]).toMatchObject({ key: 'a', offset: 3, detail: '6 again' });
  });

  it('an older count written again after a newer one is a duplicate, not a loss', () => {
    const r = checkRecords(recs(['a', 5], ['a', 6], ['b', 2], ['a', 5]), {
      expectIncreasing: true,
      expected,
    });
    expect(r.counts).toMatchObject({ duplicate: 1, loss: 0 });
    expect(r.examples.duplicate[0]!.detail).toBe('5 after 6 (an older count written again)');
  });

  it('a final count short of the expected one is a loss; no output for a key is a loss too', () => {
    const r = checkRecords(recs(['a', 2], ['a', 4]), { expectIncreasing: true, expected });
    expect(r.counts).toMatchObject({ duplicate: 0, loss: 2 + 2 });
    expect(r.keysAffected.loss).toBe(2);
  });

  it('refuses both --expect-sequences and --expect-increasing', () => {
    expect(() => checkRecords([], { expectSequences: true, expectIncreasing: true })).toThrow(/choose one/);
  });

  it("the strict sequence check names the cache's skipped values as gaps and points to this mode", () => {
    const r = checkRecords(recs(['a', 1], ['a', 5], ['a', 6]), { expectSequences: true });
    expect(r.counts.gap).toBe(3);
    expect(formatReport({ topic: 't', ...r })).toContain('Check such output with --expect-increasing');
  });
});

describe('values and expected files', () => {
  it('decodes 8-byte longs (Serdes.Long) and decimal text', () => {
    const long = Buffer.alloc(8);
    long.writeBigInt64BE(42n);
    expect(decodeValue(long)).toBe(42);
    expect(decodeValue(Buffer.from('17'))).toBe(17);
    expect(decodeValue(Buffer.from('12345678'))).toBe(12345678);
    expect(decodeValue(Buffer.from('hello'))).toBe('hello');
    expect(() => decodeValue(Buffer.from('abc'), 'long')).toThrow(/--value-format string/);
  });

  it('reads JSON and key<sep>value lines', () => {
    expect(parseExpected('{"a": 1, "b": "2"}')).toEqual(
      new Map([
        ['a', 1],
        ['b', 2],
      ]),
    );
    expect(parseExpected('# counts\na\t3\nb,4\nc=x\n')).toEqual(
      new Map<string, number | string>([
        ['a', 3],
        ['b', 4],
        ['c', 'x'],
      ]),
    );
    expect(() => parseExpected('novalue', 'exp.txt')).toThrow(/exp.txt, line 1/);
  });
});

describe('the command line', () => {
  it('refuses to run without a check, saying what to pass', async () => {
    const err: string[] = [];
    const code = await runCli(['verify', 'some-topic', '--brokers', '127.0.0.1:1'], {
      out: () => {},
      err: (s) => err.push(s),
    });
    expect(code).toBe(2);
    expect(err.join('')).toContain('pass --expect-sequences (every update written), --expect-increasing');
  });

  it('rejects an unknown value format with the choices', async () => {
    const err: string[] = [];
    const code = await runCli(['verify', 't', '--expect-sequences', '--value-format', 'avro'], {
      out: () => {},
      err: (s) => err.push(s),
    });
    expect(code).toBe(2);
    expect(err.join('')).toMatch(/auto, long, string/);
  });
});

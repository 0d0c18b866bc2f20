import { describe, expect, it } from 'vitest';
import { SerdeError } from '../../src/errors.ts';
import { Serdes } from '../../src/serdes/serdes.ts';

describe('Serdes', () => {
  it('String is UTF-8', () => {
    expect(Serdes.String().serialize('héllo').toString('hex')).toBe('68c3a96c6c6f');
    expect(Serdes.String().deserialize(Buffer.from('68c3a96c6c6f', 'hex'))).toBe('héllo');
  });

  it('Int32 is 4 bytes big-endian and range-checked', () => {
    expect(Serdes.Int32().serialize(-2).toString('hex')).toBe('fffffffe');
    expect(Serdes.Int32().deserialize(Buffer.from('7fffffff', 'hex'))).toBe(2147483647);
    expect(() => Serdes.Int32().serialize(2 ** 31)).toThrow(SerdeError);
    expect(() => Serdes.Int32().serialize(1.5)).toThrow(SerdeError);
    expect(() => Serdes.Int32().deserialize(Buffer.alloc(3))).toThrow(/expects 4 bytes, got 3/);
  });

  it('Int64 is a bigint in Java LongSerializer bytes', () => {
    // 1234567890123 = 0x11F71FB04CB; Java's LongSerializer writes it big-endian, two's complement.
    expect(Serdes.Int64().serialize(1234567890123n).toString('hex')).toBe('0000011f71fb04cb');
    expect(Serdes.Int64().serialize(-2n).toString('hex')).toBe('fffffffffffffffe');
    expect(Serdes.Int64().deserialize(Buffer.from('7fffffffffffffff', 'hex'))).toBe(2n ** 63n - 1n);
    expect(() => Serdes.Int64().serialize(2n ** 63n)).toThrow(SerdeError);
  });

  it('Long is the same 8 bytes as a number, limited to safe integers', () => {
    expect(Serdes.Long().serialize(1234567890123).toString('hex')).toBe('0000011f71fb04cb');
    expect(Serdes.Long().serialize(-2).toString('hex')).toBe('fffffffffffffffe');
    expect(Serdes.Long().deserialize(Buffer.from('0000000000000003', 'hex'))).toBe(3);
    expect(() => Serdes.Long().serialize(2 ** 53)).toThrow(/safe integer/);
    expect(() => Serdes.Long().deserialize(Buffer.from('0020000000000000', 'hex'))).toThrow(/Serdes.Int64/);
    expect(() => Serdes.Long().deserialize(Buffer.from('ffe0000000000000', 'hex'))).toThrow(/Serdes.Int64/);
    // Agrees with the bigint serde over the whole safe range.
    for (const n of [
      0,
      1,
      -1,
      2 ** 32,
      -(2 ** 32),
      2 ** 32 - 1,
      -(2 ** 32) + 1,
      Number.MAX_SAFE_INTEGER,
      Number.MIN_SAFE_INTEGER,
    ]) {
      const bytes = Serdes.Long().serialize(n);
      expect(bytes).toEqual(Serdes.Int64().serialize(BigInt(n)));
      expect(Serdes.Long().deserialize(bytes)).toBe(n);
    }
  });

  it('Float64 is an 8-byte IEEE 754 double', () => {
    expect(Serdes.Float64().serialize(1.5).toString('hex')).toBe('3ff8000000000000');
    expect(Serdes.Float64().deserialize(Buffer.from('c000000000000000', 'hex'))).toBe(-2);
  });

  it('Uuid is the 36-character text form', () => {
    const id = '123e4567-e89b-12d3-a456-426614174000';
    expect(Serdes.Uuid().serialize(id).toString()).toBe(id);
    expect(Serdes.Uuid().deserialize(Buffer.from(id))).toBe(id);
    expect(() => Serdes.Uuid().serialize('nope')).toThrow(SerdeError);
    expect(() => Serdes.Uuid().deserialize(Buffer.from('nope'))).toThrow(/not a UUID/);
  });

  it('Bytes passes buffers through', () => {
    const bytes = Buffer.from([0, 255]);
    expect(Serdes.Bytes().deserialize(Serdes.Bytes().serialize(bytes))).toEqual(bytes);
  });

  it('Json round-trips and validates with any parse() schema', () => {
    const schema = {
      parse(x: unknown): { n: number } {
        if (typeof x !== 'object' || x === null || typeof (x as { n?: unknown }).n !== 'number') {
          throw new Error('n must be a number');
        }
        return x as { n: number };
      },
    };
    const serde = Serdes.Json(schema);
    expect(serde.deserialize(serde.serialize({ n: 4 }))).toEqual({ n: 4 });
    expect(() => serde.deserialize(Buffer.from('{"n":"x"}'))).toThrow(/schema rejected/);
    expect(() => serde.deserialize(Buffer.from('{oops'))).toThrow(/not JSON/);
  });

  it('from() makes a serde out of two functions', () => {
    const serde = Serdes.from<number>(
      (n) => Buffer.from(String(n)),
      (b) => Number(b.toString()),
    );
    expect(serde.deserialize(serde.serialize(42))).toBe(42);
  });
});

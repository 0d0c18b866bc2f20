// The foreign-key join's byte formats and hash. The expected hashes were printed by Kafka Streams
// 4.4's own Murmur3.hash128 (org.apache.kafka.streams.state.internals); the differential harness
// compares whole subscription and response topics, byte for byte, with Kafka Streams.
import { describe, expect, it } from 'vitest';
import {
  combinedKey,
  combinedKeyPrefix,
  Instruction,
  prefixUpperBound,
  primaryKeyOf,
  subscriptionResponseWrapperSerde,
  subscriptionWrapperSerde,
} from '../../src/kstream/internals/fk-wire-format.ts';
import { murmur3Hash128 } from '../../src/kstream/internals/murmur3.ts';

describe('murmur3 128 (Kafka Streams seed 104729)', () => {
  it.each([
    ['', '9d2764a018e329428c3cf3b035938518'],
    ['a', '3361634e7e0f5188e9c7dda24eae326b'],
    ['hello', '30bfb4f39919e764566aea857401d1c6'],
    ['0123456789abcde', 'c480e6b5c0016979a0d033624a7f7904'],
    ['0123456789abcdef', '1a6e941ec6a76967d7d82808f505d6b1'],
    ['0123456789abcdefg', 'a93635c3ece7b605aeed6784d1b08b32'],
    ['order-1:product-17:qty=3:some more text!', '291aa1baa556634fbeb0404e9698b759'],
    ['\u00ff\u00fe\u0080x', '21ed0e17e2b2c4608ab928079df3a349'],
  ])('%j', (text, hex) => {
    expect(murmur3Hash128(Buffer.from(text, 'utf8')).toString('hex')).toBe(hex);
  });
});

/** The algorithm straight from Java's source in BigInt: slow, plain, a second opinion. */
function referenceHash128(data: Buffer): string {
  const M = (1n << 64n) - 1n;
  const [c1, c2] = [0x87c37b91114253d5n, 0x4cf5ad432745937fn];
  const rotl = (x: bigint, r: bigint) => ((x << r) | (x >> (64n - r))) & M;
  const fmix = (h: bigint) => {
    let k = h ^ (h >> 33n);
    k = (k * 0xff51afd7ed558ccdn) & M;
    k ^= k >> 33n;
    k = (k * 0xc4ceb9fe1a85ec53n) & M;
    return k ^ (k >> 33n);
  };
  const word = (at: number, n: number) => {
    let k = 0n;
    for (let i = n - 1; i >= 0; i--) k = (k << 8n) | BigInt(data[at + i]!);
    return k;
  };
  let [h1, h2] = [104729n, 104729n];
  const blocks = data.length >> 4;
  for (let i = 0; i < blocks; i++) {
    h1 ^= (rotl((word(i * 16, 8) * c1) & M, 31n) * c2) & M;
    h1 = (((rotl(h1, 27n) + h2) & M) * 5n + 0x52dce729n) & M;
    h2 ^= (rotl((word(i * 16 + 8, 8) * c2) & M, 33n) * c1) & M;
    h2 = (((rotl(h2, 31n) + h1) & M) * 5n + 0x38495ab5n) & M;
  }
  const rest = data.length - blocks * 16;
  if (rest > 8) h2 ^= (rotl((word(blocks * 16 + 8, rest - 8) * c2) & M, 33n) * c1) & M;
  if (rest > 0) h1 ^= (rotl((word(blocks * 16, Math.min(rest, 8)) * c1) & M, 31n) * c2) & M;
  h1 ^= BigInt(data.length);
  h2 ^= BigInt(data.length);
  h1 = (h1 + h2) & M;
  h2 = (h2 + h1) & M;
  h1 = fmix(h1);
  h2 = fmix(h2);
  h1 = (h1 + h2) & M;
  h2 = (h2 + h1) & M;
  return h1.toString(16).padStart(16, '0') + h2.toString(16).padStart(16, '0');
}

describe('murmur3 128 against a BigInt transcription', () => {
  it('agrees for every length 0..80 and every byte value', () => {
    for (let length = 0; length <= 80; length++) {
      const data = Buffer.from(Array.from({ length }, (_, i) => (i * 151 + length * 7 + 0xf0) & 0xff));
      expect(murmur3Hash128(data).toString('hex'), `length ${length}`).toBe(referenceHash128(data));
    }
    const all = Buffer.from(Array.from({ length: 256 }, (_, i) => 255 - i));
    expect(murmur3Hash128(all).toString('hex')).toBe(referenceHash128(all));
  });
});

describe('subscription wrapper', () => {
  const hash = Buffer.alloc(16, 0xab);
  it('writes version 1: version, instruction, hash, primary key, partition', () => {
    const bytes = subscriptionWrapperSerde.serialize({
      version: 1,
      hash,
      instruction: Instruction.PROPAGATE_NULL_IF_NO_FK_VAL_AVAILABLE,
      primaryKey: Buffer.from('o1'),
      primaryPartition: 7,
    });
    expect(bytes.toString('hex')).toBe(`0102${'ab'.repeat(16)}6f3100000007`);
    expect(subscriptionWrapperSerde.deserialize(bytes)).toEqual({
      version: 1,
      hash,
      instruction: 2,
      primaryKey: Buffer.from('o1'),
      primaryPartition: 7,
    });
  });

  it('marks a missing hash in the version byte and reads version 0 (no partition)', () => {
    const bytes = subscriptionWrapperSerde.serialize({
      version: 0,
      hash: null,
      instruction: Instruction.DELETE_KEY_AND_PROPAGATE,
      primaryKey: Buffer.from('o1'),
      primaryPartition: undefined,
    });
    expect(bytes.toString('hex')).toBe('80016f31');
    expect(subscriptionWrapperSerde.deserialize(bytes)).toMatchObject({
      version: 0,
      hash: null,
      primaryKey: Buffer.from('o1'),
      primaryPartition: undefined,
    });
  });

  it('rejects an unknown instruction and a truncated record', () => {
    expect(() => subscriptionWrapperSerde.deserialize(Buffer.from('0109', 'hex'))).toThrow(/instruction/);
    expect(() => subscriptionWrapperSerde.deserialize(Buffer.from('0102ab', 'hex'))).toThrow(/truncated/);
  });
});

describe('subscription response wrapper', () => {
  it('writes version 0: version, hash, value; an absent value or hash takes no bytes', () => {
    const hash = Buffer.alloc(16, 1);
    const full = { version: 0, hash, foreignValue: Buffer.from('pear') };
    expect(subscriptionResponseWrapperSerde.serialize(full).toString('hex')).toBe(
      `00${'01'.repeat(16)}70656172`,
    );
    expect(
      subscriptionResponseWrapperSerde.deserialize(subscriptionResponseWrapperSerde.serialize(full)),
    ).toEqual(full);
    const empty = subscriptionResponseWrapperSerde.serialize({ version: 0, hash: null, foreignValue: null });
    expect(empty.toString('hex')).toBe('80');
    expect(subscriptionResponseWrapperSerde.deserialize(empty)).toEqual({
      version: 0,
      hash: null,
      foreignValue: null,
    });
  });
});

describe('combined key', () => {
  it('is the foreign key length, the foreign key, the primary key; prefixes sort together', () => {
    const key = combinedKey(Buffer.from('p1'), Buffer.from('o9'));
    expect(key.toString('hex')).toBe('000000027031' + '6f39');
    expect(primaryKeyOf(key).toString()).toBe('o9');
    const prefix = combinedKeyPrefix(Buffer.from('p1'));
    expect(key.subarray(0, prefix.length).equals(prefix)).toBe(true);
    const upper = prefixUpperBound(prefix)!;
    expect(Buffer.compare(key, upper)).toBeLessThan(0);
    expect(Buffer.compare(combinedKey(Buffer.from('p2'), Buffer.from('o1')), upper)).toBeGreaterThanOrEqual(
      0,
    );
    expect(prefixUpperBound(Buffer.from('ff01ff', 'hex'))!.toString('hex')).toBe('ff02');
    expect(prefixUpperBound(Buffer.from('ffff', 'hex'))).toBeUndefined();
  });
});

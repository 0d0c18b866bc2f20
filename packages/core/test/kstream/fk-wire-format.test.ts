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

import { Partitioners } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { JavaCompatiblePartitioner } from '../../src/kafka/java-partitioner.ts';
import { murmur2, partitionForKey } from '../../src/processor/internals/partitioner.ts';

describe('partitionForKey', () => {
  it('agrees with kafkajs’ Java-compatible DefaultPartitioner for many keys and widths', () => {
    const kafkajs = Partitioners.DefaultPartitioner();
    for (const width of [1, 3, 4, 7, 12]) {
      const partitionMetadata = Array.from({ length: width }, (_, i) => ({
        partitionId: i,
        leader: 0,
        partitionErrorCode: 0,
        replicas: [0],
        isr: [0],
      }));
      for (let i = 0; i < 500; i++) {
        const key = Buffer.from(`key-${i}-${'x'.repeat(i % 7)}`);
        expect(partitionForKey(key, width)).toBe(
          kafkajs({ topic: 't', partitionMetadata, message: { key, value: null } }),
        );
      }
    }
  });

  it('gives the producers kafkajs’ partition for keyed messages, keeps a set partition, round-robins the rest', () => {
    const kafkajs = Partitioners.DefaultPartitioner();
    const ours = JavaCompatiblePartitioner();
    const partitionMetadata = Array.from({ length: 6 }, (_, i) => ({
      partitionId: i,
      leader: 0,
      partitionErrorCode: 0,
      replicas: [0],
      isr: [0],
    }));
    for (let i = 0; i < 300; i++) {
      const key = i % 3 === 0 ? `text-${i}` : Buffer.from(`key-${i}`);
      const args = { topic: 't', partitionMetadata, message: { key, value: null } };
      expect(ours(args)).toBe(kafkajs(args));
    }
    expect(ours({ topic: 't', partitionMetadata, message: { key: 'k', value: null, partition: 4 } })).toBe(4);
    const spread = new Set(
      Array.from({ length: 12 }, () =>
        ours({ topic: 't', partitionMetadata, message: { key: null, value: null } }),
      ),
    );
    expect(spread.size).toBe(6);
  });

  it('matches murmur2 values computed by Kafka’s Java Utils.murmur2', () => {
    // Reference values from Kafka's UtilsTest (testMurmur2).
    expect(murmur2(Buffer.from('21'))).toBe(-973932308);
    expect(murmur2(Buffer.from('foobar'))).toBe(-790332482);
    expect(murmur2(Buffer.from('a-little-bit-long-string'))).toBe(-985981536);
    expect(murmur2(Buffer.from('a-little-bit-longer-string'))).toBe(-1486304829);
    expect(murmur2(Buffer.from('lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8'))).toBe(-58897971);
    expect(murmur2(Buffer.from([97, 98, 99]))).toBe(479470107);
  });
});

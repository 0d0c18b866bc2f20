// queryMetadataForKey's routing (runtime/key-partition.ts): a key serde routes as the default
// partitioner wrote the key, a StreamPartitioner as the app's custom partitioner did.
import { describe, expect, it } from 'vitest';
import { StreamsError } from '../../src/errors.ts';
import { StreamsBuilder } from '../../src/kstream/index.ts';
import { partitionForKey } from '../../src/processor/internals/partitioner.ts';
import type { StreamPartitioner } from '../../src/processor/stream-partitioner.ts';
import { KeyQueryResolver, type QueryDeps } from '../../src/runtime/interactive-queries.ts';
import { partitionOfKey } from '../../src/runtime/key-partition.ts';
import { Serdes } from '../../src/serdes/serdes.ts';

describe('partitionOfKey', () => {
  it('routes with murmur2 of the serialized key when given the key serde', () => {
    for (const key of ['alice', 'bob', 'carol', 'dave']) {
      expect(partitionOfKey(key, Serdes.String(), 'in', 6, 'counts')).toBe(
        partitionForKey(Buffer.from(key), 6),
      );
    }
  });

  it('routes with the partitioner, told the widest source topic, its count and a null value', () => {
    const asked: unknown[] = [];
    const byRegion: StreamPartitioner<string, unknown> = (topic, key, value, n) => {
      asked.push([topic, value, n]);
      return key.startsWith('eu-') ? 0 : n - 1;
    };
    expect(partitionOfKey('eu-alice', byRegion, 'orders', 4, 'counts')).toBe(0);
    expect(partitionOfKey('us-bob', byRegion, 'orders', 4, 'counts')).toBe(3);
    expect(asked).toEqual([
      ['orders', null, 4],
      ['orders', null, 4],
    ]);
    // The default partitioner would have put them elsewhere: the partitioner is what decides.
    expect(partitionForKey(Buffer.from('us-bob'), 4)).not.toBe(3);
  });

  it('uses partitions() when the partitioner has it and it chooses one partition', () => {
    expect(partitionOfKey('k', { partitions: () => new Set([2]) }, 'orders', 4, 'counts')).toBe(2);
  });

  it('refuses a multicast, an empty set or the default choice: the key has no one partition', () => {
    const cases: StreamPartitioner<string, unknown>[] = [
      { partitions: () => new Set([0, 1]) },
      { partitions: () => [] },
      () => undefined,
    ];
    for (const p of cases) {
      expect(() => partitionOfKey('k', p, 'orders', 4, 'counts')).toThrow(StreamsError);
      expect(() => partitionOfKey('k', p, 'orders', 4, 'counts')).toThrow(
        /must choose exactly one partition/,
      );
    }
  });

  it('reports an out-of-range choice with the range', () => {
    expect(() => partitionOfKey('k', () => 9, 'orders', 4, 'counts')).toThrow(/from 0 to 3/);
  });
});

describe('KeyQueryResolver with a StreamPartitioner', () => {
  it('asks the partitioner with the widest source topic of the store’s sub-topology and finds the owner', async () => {
    const builder = new StreamsBuilder();
    builder
      .stream<string, string>('narrow', { keySerde: Serdes.String(), valueSerde: Serdes.String() })
      .merge(
        builder.stream<string, string>('wide', { keySerde: Serdes.String(), valueSerde: Serdes.String() }),
      )
      .groupByKey()
      .count({ storeName: 'counts' });
    const asked: unknown[] = [];
    const lastPartition: StreamPartitioner<string, unknown> = (topic, _key, _value, n) => {
      asked.push([topic, n]);
      return n - 1;
    };
    const admin = {
      partitionCounts: async (topics: string[]) =>
        new Map(topics.map((t) => [t, t === 'wide' ? 5 : 2] as [string, number])),
      groupMembers: async () => [
        { memberId: 'm1', applicationServer: 'host-a:1', assignment: { wide: [0, 1, 2] } },
        { memberId: 'm2', applicationServer: 'host-b:1', assignment: { wide: [3, 4] } },
      ],
    };
    const resolver = new KeyQueryResolver({
      config: { applicationId: 'app' },
      topology: builder.build(),
      admin,
      tasks: () => [],
    } as unknown as QueryDeps);
    expect(await resolver.metadataForKey('counts', 'k', lastPartition)).toEqual({
      partition: 4,
      taskId: '0_4',
      local: false,
      host: 'host-b:1',
      standbyHosts: [],
    });
    expect(asked).toEqual([['wide', 5]]);
    // The key serde still routes by murmur2, over the same 5 partitions.
    const byMurmur = partitionForKey(Buffer.from('k'), 5);
    expect((await resolver.metadataForKey('counts', 'k', Serdes.String())).partition).toBe(byMurmur);
  });
});

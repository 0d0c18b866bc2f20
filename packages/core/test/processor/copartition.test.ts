// The co-partitioning check of joins at start (processor/internals/copartition.ts), on partition
// counts alone, and the groups the DSL records for it.
import { describe, expect, it } from 'vitest';
import { TopologyError } from '../../src/errors.ts';
import { StreamsBuilder } from '../../src/kstream/index.ts';
import { enforceCopartitioning, planRepartitionCounts } from '../../src/processor/internals/copartition.ts';

const isRepartition = (topic: string) => topic.endsWith('-repartition');

describe('enforceCopartitioning', () => {
  it('accepts source topics with one partition count and gives it to the group’s repartition topics', () => {
    const counts = new Map([
      ['orders', 3],
      ['customers', 3],
      ['app-x-repartition', 5],
    ]);
    enforceCopartitioning(
      [
        ['app-x-repartition', 'customers'],
        ['orders', 'customers'],
      ],
      counts,
      isRepartition,
    );
    expect(counts.get('app-x-repartition')).toBe(3);
  });

  it('names both topics and their counts when two source topics differ', () => {
    const counts = new Map([
      ['orders', 2],
      ['customers', 3],
    ]);
    expect(() => enforceCopartitioning([['orders', 'customers']], counts, isRepartition)).toThrow(
      TopologyError,
    );
    expect(() => enforceCopartitioning([['orders', 'customers']], counts, isRepartition)).toThrow(
      /orders \(2 partitions\), customers \(3 partitions\)/,
    );
  });

  it('makes a group of repartition topics only as wide as the widest', () => {
    const counts = new Map([
      ['a-repartition', 2],
      ['b-repartition', 4],
    ]);
    enforceCopartitioning([['a-repartition', 'b-repartition']], counts, isRepartition);
    expect([counts.get('a-repartition'), counts.get('b-repartition')]).toEqual([4, 4]);
  });
});

describe('co-partition groups of the DSL', () => {
  it('holds the source topics upstream of each join input, none for a global table', () => {
    const b = new StreamsBuilder();
    const customers = b.table<string, string>('customers');
    const products = b.globalTable<string, string>('products');
    b.stream<string, string>('orders')
      .selectKey((_k, v) => v)
      .join(customers, (o, c) => `${o}${c}`, { name: 'by-customer' })
      .join(
        products,
        (_k, v) => v,
        (o, p) => `${o}${p}`,
      )
      .to('out');
    const topology = b.build();
    expect(topology.internalBuilder.copartitionGroups('app')).toEqual([
      ['app-by-customer-repartition', 'customers'],
    ]);
  });
});

describe('planRepartitionCounts with Repartitioned.numberOfPartitions', () => {
  const subs = [
    { sourceTopics: ['orders'], repartitionSinkTopics: ['app-fixed-repartition', 'app-free-repartition'] },
    { sourceTopics: ['app-fixed-repartition'], repartitionSinkTopics: ['app-next-repartition'] },
  ];

  it('gives a fixed topic its own count, and the topics it feeds that count', () => {
    const counts = new Map([['orders', 2]]);
    planRepartitionCounts(subs, counts, new Map([['app-fixed-repartition', 3]]), [], isRepartition);
    expect(Object.fromEntries(counts)).toEqual({
      orders: 2,
      'app-fixed-repartition': 3,
      'app-free-repartition': 2,
      'app-next-repartition': 3,
    });
  });

  it('keeps a fixed count in a join group of repartition topics and gives it to the others', () => {
    const counts = new Map([['orders', 2]]);
    planRepartitionCounts(
      subs,
      counts,
      new Map([['app-fixed-repartition', 3]]),
      [['app-fixed-repartition', 'app-free-repartition']],
      isRepartition,
    );
    expect([counts.get('app-fixed-repartition'), counts.get('app-free-repartition')]).toEqual([3, 3]);
  });

  it('fails as Kafka Streams does when a fixed count differs from the group’s source topics', () => {
    const counts = new Map([
      ['orders', 2],
      ['customers', 2],
    ]);
    expect(() =>
      planRepartitionCounts(
        subs,
        counts,
        new Map([['app-fixed-repartition', 3]]),
        [['app-fixed-repartition', 'customers']],
        isRepartition,
      ),
    ).toThrow(
      "Number of partitions [3] of repartition topic [app-fixed-repartition] doesn't match number of partitions [2] of the source topic",
    );
  });

  it('fails when two fixed topics of a group differ', () => {
    const counts = new Map([['orders', 2]]);
    expect(() =>
      planRepartitionCounts(
        subs,
        counts,
        new Map([
          ['app-fixed-repartition', 3],
          ['app-free-repartition', 4],
        ]),
        [['app-fixed-repartition', 'app-free-repartition']],
        isRepartition,
      ),
    ).toThrow(/Following topics do not have the same number of partitions/);
  });
});

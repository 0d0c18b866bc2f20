// The co-partitioning check of joins at start (processor/internals/copartition.ts), on partition
// counts alone, and the groups the DSL records for it.
import { describe, expect, it } from 'vitest';
import { TopologyError } from '../../src/errors.ts';
import { StreamsBuilder } from '../../src/kstream/index.ts';
import { enforceCopartitioning } from '../../src/processor/internals/copartition.ts';

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

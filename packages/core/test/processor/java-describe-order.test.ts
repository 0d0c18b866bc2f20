// Kafka Streams' describe() print order, replayed without a JVM (the differential harness checks
// whole descriptions against Kafka Streams; these are orders it printed).
import { describe, expect, it } from 'vitest';
import { javaDescribeOrder, javaHashOrder } from '../../src/processor/internals/java-describe-order.ts';

describe("Kafka Streams' describe() order", () => {
  it('lists a processor’s stores in Java HashSet order, not sorted', () => {
    expect(javaHashOrder(['st-outer-other-join-store', 'st-outer-shared-join-store'])).toEqual([
      'st-outer-shared-join-store',
      'st-outer-other-join-store',
    ]);
    expect(
      javaHashOrder(['KSTREAM-OUTERSHARED-0000000004-store', 'KSTREAM-OUTEROTHER-0000000005-store']),
    ).toEqual(['KSTREAM-OUTEROTHER-0000000005-store', 'KSTREAM-OUTERSHARED-0000000004-store']);
  });

  it('lists a merge’s predecessors by the sizes they had when Java linked them (JOINTHIS first)', () => {
    const order = javaDescribeOrder([
      { name: 'KSTREAM-SOURCE-0000000000', parents: [] },
      { name: 'KSTREAM-SOURCE-0000000001', parents: [] },
      { name: 'KSTREAM-WINDOWED-0000000002', parents: ['KSTREAM-SOURCE-0000000000'] },
      { name: 'KSTREAM-WINDOWED-0000000003', parents: ['KSTREAM-SOURCE-0000000001'] },
      { name: 'KSTREAM-JOINTHIS-0000000004', parents: ['KSTREAM-WINDOWED-0000000002'] },
      { name: 'KSTREAM-JOINOTHER-0000000005', parents: ['KSTREAM-WINDOWED-0000000003'] },
      {
        name: 'KSTREAM-MERGE-0000000006',
        parents: ['KSTREAM-JOINTHIS-0000000004', 'KSTREAM-JOINOTHER-0000000005'],
      },
      { name: 'KSTREAM-SINK-0000000007', parents: ['KSTREAM-MERGE-0000000006'] },
    ]);
    expect(order.predecessors.get('KSTREAM-MERGE-0000000006')).toEqual([
      'KSTREAM-JOINTHIS-0000000004',
      'KSTREAM-JOINOTHER-0000000005',
    ]);
    // The nodes themselves: final sizes, then names (Kafka Streams printed JOINOTHER first here).
    expect(order.nodes.slice(4, 6)).toEqual(['KSTREAM-JOINOTHER-0000000005', 'KSTREAM-JOINTHIS-0000000004']);
    expect(order.nodes[0]).toBe('KSTREAM-SOURCE-0000000000');
  });
});

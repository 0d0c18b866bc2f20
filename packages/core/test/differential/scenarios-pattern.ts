// The pattern-source scenario (issue 38: Kafka Streams' stream(Pattern)): PatternTopologies.java
// builds the same topology with Kafka Streams. Both drivers feed the topics that match the
// pattern to its one source node (one task: a count per key across orders-eu and orders-us), and
// describe() prints the pattern as Java does: `(topics: orders-.*)`.

import type { Scenario } from '../../../../scripts/differential/kafka-streams.ts';
import type { StreamsBuilder } from '../../src/kstream/index.ts';
import { Serdes } from '../../src/serdes/serdes.ts';

export const patternTopologies: Record<string, (builder: StreamsBuilder) => void> = {
  'pattern-source': (b) => {
    const orders = b.stream<string, string>(/orders-.*/);
    orders.mapValues((v) => v.toUpperCase()).to('upper');
    orders.groupByKey().count().toStream().to('counts', { valueSerde: Serdes.Long() });
    b.stream<string, string>('returns').to('returned');
  },
};

export const patternScenarios: Scenario[] = [
  {
    name: 'a pattern source: every matching topic read by one source node, describe() as Java',
    topology: 'pattern-source',
    inputs: [
      { topic: 'orders-eu', key: 'k1', value: 'a', timestamp: 10 },
      { topic: 'orders-us', key: 'k1', value: 'b', timestamp: 20 },
      { topic: 'returns', key: 'k1', value: 'r', timestamp: 30 },
      { topic: 'orders-eu', key: 'k2', value: 'c', timestamp: 40 },
      { topic: 'orders-apac', key: 'k1', value: 'd', timestamp: 35 },
    ],
    outputs: [
      { topic: 'upper', value: 'string' },
      { topic: 'counts', value: 'long' },
      { topic: 'returned', value: 'string' },
    ],
    describe: true,
  },
];

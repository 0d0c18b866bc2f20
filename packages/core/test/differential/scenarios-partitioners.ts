// The partitioning scenarios (issue 38): PartitionerTopologies.java builds the same topologies
// with Kafka Streams. Its TopologyTestDriver gives every topic one partition, so the partitioner
// is compared by what it lets through (KIP-837: an empty set drops the record, none leaves it to
// the default partitioner), by the outputs and by describe() of named repartitions.
import type { Scenario, ScenarioInput } from '../../../../scripts/differential/kafka-streams.ts';
import type { StreamsBuilder } from '../../src/kstream/index.ts';
import type { StreamPartitioner } from '../../src/processor/stream-partitioner.ts';
import { Serdes } from '../../src/serdes/serdes.ts';

const L = Serdes.Long();

/** "drop..." goes nowhere, "default..." to the default partitioner, the rest by key length. */
const byValue: StreamPartitioner<string, string> = (_topic, key, value, numPartitions) => {
  if (value.startsWith('drop')) return new Set<number>();
  if (value.startsWith('default')) return undefined;
  return new Set([key.length % numPartitions]);
};

export const partitionerTopologies: Record<string, (builder: StreamsBuilder) => void> = {
  'partitioner-repartition': (b) => {
    const rekeyed = b
      .stream<string, string>('in')
      .selectKey((_k, v) => v.split('-').at(-1)!)
      .repartition({ name: 'by-value', streamPartitioner: byValue });
    rekeyed.to('passed');
    rekeyed.groupByKey().count().toStream().to('counts', { valueSerde: L });
  },
  'partitioner-sink': (b) => b.stream<string, string>('in').to('out', { streamPartitioner: byValue }),
  'repartition-number-of-partitions': (b) =>
    b
      .stream<string, string>('in')
      .selectKey((_k, v) => v)
      .repartition({ name: 'wide', numberOfPartitions: 3 })
      .groupByKey()
      .count()
      .toStream()
      .to('out', { valueSerde: L }),
};

const inputs: ScenarioInput[] = (
  [
    ['k1', 'apple', 10],
    ['k2', 'drop-apple', 11],
    ['k3', 'default-apple', 12],
    ['k4', 'pear', 13],
    ['k5', 'drop-pear', 14],
    ['k6', 'default-fig', 15],
    ['k7', 'fig', 16],
  ] as const
).map(([key, value, timestamp]) => ({ topic: 'in', key, value, timestamp }));

export const partitionerScenarios: Scenario[] = [
  {
    name: 'Repartitioned.withStreamPartitioner on a named repartition: empty set drops, none is the default',
    topology: 'partitioner-repartition',
    describe: true,
    inputs,
    outputs: [
      { topic: 'passed', value: 'string' },
      { topic: 'counts', value: 'long' },
    ],
  },
  {
    name: 'Produced.withStreamPartitioner on a sink: empty set drops, none is the default',
    topology: 'partitioner-sink',
    describe: true,
    inputs,
    outputs: [{ topic: 'out', value: 'string' }],
  },
  {
    name: 'Repartitioned.withNumberOfPartitions on a named repartition',
    topology: 'repartition-number-of-partitions',
    describe: true,
    inputs,
    outputs: [{ topic: 'out', value: 'long' }],
  },
];

// StreamPartitioner and Repartitioned in the DSL and the Processor API, through the test driver
// (one partition per topic, as Java's): what the partitioner is asked, what it drops, and the
// build-time checks of Repartitioned.numberOfPartitions and of a partitioner's shape.
import { afterEach, describe, expect, it } from 'vitest';
import { StreamsError, TopologyError } from '../../src/errors.ts';
import { StreamsBuilder } from '../../src/kstream/index.ts';
import type { StreamPartitioner } from '../../src/processor/stream-partitioner.ts';
import { Topology } from '../../src/processor/topology.ts';
import { Serdes } from '../../src/serdes/serdes.ts';
import { TopologyTestDriver } from '../../src/testing/index.ts';

const S = Serdes.String();
let driver: TopologyTestDriver | undefined;

afterEach(async () => {
  await driver?.close();
  driver = undefined;
});

describe('StreamPartitioner in the test driver', () => {
  it('asks the Processor API sink’s partitioner with its topic and one partition; an empty set drops', async () => {
    const asked: unknown[] = [];
    const partitioner: StreamPartitioner<string, string> = {
      partitions: (topic, key, value, n) => {
        asked.push([topic, key, value, n]);
        return value === 'drop' ? [] : [0];
      },
    };
    const topology = new Topology()
      .addSource('src', 'in', { keySerde: S, valueSerde: S })
      .addSink('sink', 'out', { keySerde: S, valueSerde: S, streamPartitioner: partitioner }, 'src');
    driver = new TopologyTestDriver(topology);
    const input = driver.createInputTopic('in', S, S);
    await input.pipeInput('a', 'keep');
    await input.pipeInput('b', 'drop');
    expect(driver.createOutputTopic('out', S, S).readKeyValuesToList()).toEqual([
      { key: 'a', value: 'keep' },
    ]);
    expect(asked).toEqual([
      ['out', 'a', 'keep', 1],
      ['out', 'b', 'drop', 1],
    ]);
  });

  it('fails the record with the valid range when the partitioner picks a partition the topic lacks', async () => {
    const builder = new StreamsBuilder();
    builder.stream('in', { keySerde: S, valueSerde: S }).to('out', { streamPartitioner: () => 1 });
    driver = new TopologyTestDriver(builder.build());
    await expect(driver.createInputTopic('in', S, S).pipeInput('a', 'v')).rejects.toThrow(
      /chose partition 1 of topic out, which has 1 partition\(s\): return an integer from 0 to 0/,
    );
  });

  it('partitions a repartition topic with the Repartitioned’s partitioner', async () => {
    const seen: string[] = [];
    const builder = new StreamsBuilder();
    builder
      .stream('in', { keySerde: S, valueSerde: S })
      .repartition({
        name: 'by-key',
        streamPartitioner: (topic, key) => {
          seen.push(`${topic}:${key}`);
          return key === 'x' ? new Set<number>() : undefined;
        },
      })
      .to('out');
    driver = new TopologyTestDriver(builder.build(), { applicationId: 'app' });
    const input = driver.createInputTopic('in', S, S);
    await input.pipeInput('x', '1');
    await input.pipeInput('y', '2');
    expect(driver.createOutputTopic('out', S, S).readKeyValuesToList()).toEqual([{ key: 'y', value: '2' }]);
    expect(seen).toEqual(['app-by-key-repartition:x', 'app-by-key-repartition:y']);
  });
});

describe('Repartitioned at build time', () => {
  it('records numberOfPartitions for the repartition topic, named by withName', () => {
    const builder = new StreamsBuilder();
    builder.stream<string, string>('in').repartition({ name: 'wide', numberOfPartitions: 3 }).to('out');
    const topology = builder.build();
    expect([...topology.internalBuilder.fixedPartitionCounts]).toEqual([['wide-repartition', 3]]);
    expect(topology.describe().toString()).toContain('Sink: wide-repartition-sink (topic: wide-repartition)');
  });

  it('refuses a partition count that is not a positive integer, saying what to give', () => {
    for (const numberOfPartitions of [0, -2, 1.5]) {
      const stream = new StreamsBuilder().stream<string, string>('in');
      expect(() => stream.repartition({ name: 'wide', numberOfPartitions })).toThrow(TopologyError);
      expect(() => stream.repartition({ name: 'wide', numberOfPartitions })).toThrow(
        /numberOfPartitions of wide is .*: give a positive integer/,
      );
    }
  });

  it('refuses a streamPartitioner that is neither a function nor has partitions()', () => {
    const stream = new StreamsBuilder().stream<string, string>('in');
    const bad = { partition: () => 0 } as unknown as StreamPartitioner<string, string>;
    expect(() => stream.to('out', { streamPartitioner: bad })).toThrow(StreamsError);
    expect(() => stream.to('out', { streamPartitioner: bad })).toThrow(
      /must be a function .* or an object with partitions\(\)/,
    );
  });
});

// Where a task starts a partition without a committed offset (auto.offset.reset, Consumed's
// offsetResetPolicy, KIP-1106's byDuration): the policy of each topic and the offsets it asks for.
import { describe, expect, it } from 'vitest';
import { resolveStreamsConfig } from '../../src/config/streams-config.ts';
import { StreamsError, TopologyError } from '../../src/errors.ts';
import type { TopicPartitionOffset } from '../../src/kafka/admin.ts';
import { StreamsBuilder } from '../../src/kstream/index.ts';
import { AutoOffsetReset } from '../../src/processor/auto-offset-reset.ts';
import { Topology } from '../../src/processor/topology.ts';
import { type OffsetLookup, offsetResetPolicies, resetOffsets } from '../../src/runtime/offset-reset.ts';
import { Serdes } from '../../src/serdes/serdes.ts';

const S = Serdes.String();

/** Each topic has partitions 0 and 1; start offset 10 + p, end 100 + p, by time 50 + p. */
function lookup(calls: string[]): OffsetLookup {
  const of = (topics: string[], base: number): TopicPartitionOffset[] =>
    topics.flatMap((topic) => [0, 1].map((partition) => ({ topic, partition, offset: base + partition })));
  return {
    startOffsets: async (topics) => {
      calls.push(`start ${topics.join(',')}`);
      return of(topics, 10);
    },
    endOffsets: async (topics) => {
      calls.push(`end ${topics.join(',')}`);
      return of(topics, 100);
    },
    offsetsForTimes: async (topics, timestamp) => {
      calls.push(`times ${topics.join(',')} @${timestamp}`);
      return of(topics, 50);
    },
  };
}

describe('offsetResetPolicies', () => {
  it("a source's own policy, else the config's; repartition topics always earliest", () => {
    const builder = new StreamsBuilder();
    builder.stream('clicks', { keySerde: S, valueSerde: S, offsetResetPolicy: 'latest' }).to('out');
    builder
      .stream<string, string>('views', { keySerde: S, valueSerde: S })
      .selectKey((_k, v) => v)
      .groupByKey()
      .count()
      .toStream()
      .to('counts');
    const policyOf = offsetResetPolicies(builder.build(), 'app', AutoOffsetReset.byDuration(60_000));
    expect(policyOf('clicks')).toEqual({ type: 'latest' });
    expect(policyOf('views')).toEqual({ type: 'by_duration', durationMs: 60_000 });
    const repartition = builder
      .build()
      .subtopologies('app')
      .flatMap((s) => s.repartitionSourceTopics);
    expect(repartition).toHaveLength(1);
    expect(policyOf(repartition[0]!)).toEqual({ type: 'earliest' });
  });

  it("the Processor API's addSource takes a policy too", () => {
    const topology = new Topology()
      .addSource('src', 'in', { offsetResetPolicy: AutoOffsetReset.none() })
      .addSink('out', 'out', undefined, 'src');
    expect(offsetResetPolicies(topology, 'app', AutoOffsetReset.earliest())('in')).toEqual({ type: 'none' });
  });
});

describe('resetOffsets', () => {
  it('asks each policy for its topics and keeps only the partitions without a committed offset', async () => {
    const calls: string[] = [];
    const policies: Record<string, AutoOffsetReset> = {
      a: AutoOffsetReset.earliest(),
      b: AutoOffsetReset.latest(),
      c: AutoOffsetReset.byDuration(3_600_000),
    };
    const offsets = await resetOffsets(
      [
        { topic: 'a', partition: 1 },
        { topic: 'b', partition: 0 },
        { topic: 'c', partition: 1 },
      ],
      (topic) => policies[topic]!,
      lookup(calls),
      10_000_000,
    );
    expect(offsets).toEqual([
      { topic: 'a', partition: 1, offset: 11 },
      { topic: 'b', partition: 0, offset: 100 },
      { topic: 'c', partition: 1, offset: 51 },
    ]);
    expect(calls).toEqual(['start a', 'end b', 'times c @6400000']);
  });

  it("'none' fails naming the partitions and what to set, before any lookup", async () => {
    const calls: string[] = [];
    const failing = resetOffsets(
      [
        { topic: 'a', partition: 0 },
        { topic: 'n', partition: 3 },
      ],
      (topic) => (topic === 'n' ? AutoOffsetReset.none() : AutoOffsetReset.earliest()),
      lookup(calls),
      0,
    );
    await expect(failing).rejects.toThrow(StreamsError);
    await expect(failing).rejects.toThrow(
      /No committed offset for input partition\(s\) n-3 and the offset reset policy is 'none'\. Set autoOffsetReset/,
    );
    expect(calls).toEqual([]);
  });
});

describe('bad policies are refused up front', () => {
  const config = (autoOffsetReset: unknown) =>
    resolveStreamsConfig({
      applicationId: 'a',
      brokers: 'b:1',
      autoOffsetReset: autoOffsetReset as 'latest',
    });

  it('the config takes the names and byDuration, earliest by default', () => {
    expect(config(undefined).autoOffsetReset).toEqual({ type: 'earliest' });
    expect(config('latest').autoOffsetReset).toEqual({ type: 'latest' });
    expect(config(AutoOffsetReset.byDuration(5_000)).autoOffsetReset).toEqual({
      type: 'by_duration',
      durationMs: 5_000,
    });
    expect(() => config('smallest')).toThrow(/"autoOffsetReset" must be 'earliest', 'latest', 'none' or/);
    expect(() => config(AutoOffsetReset.byDuration(-1))).toThrow(/"autoOffsetReset" must be/);
  });

  it('in Consumed, naming the source', () => {
    expect(() =>
      new StreamsBuilder().stream('in', { name: 'clicks', offsetResetPolicy: 'oldest' as 'latest' }),
    ).toThrow(TopologyError);
    expect(() =>
      new StreamsBuilder().stream('in', { name: 'clicks', offsetResetPolicy: 'oldest' as 'latest' }),
    ).toThrow(/Source clicks: offsetResetPolicy must be/);
  });
});

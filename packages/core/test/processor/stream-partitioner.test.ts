// A sink's StreamPartitioner (processor/stream-partitioner.ts, internals/sink-partitioner.ts and
// sendSerialized): which partition(s) each record goes to, broker-free.
import { describe, expect, it } from 'vitest';
import { StreamsError } from '../../src/errors.ts';
import type { RecordCollector } from '../../src/processor/internals/record-collector.ts';
import { sendSerialized } from '../../src/processor/internals/record-collector.ts';
import type { OutputRecord } from '../../src/processor/internals/records.ts';
import { sinkPartitioner } from '../../src/processor/internals/sink-partitioner.ts';
import { Record } from '../../src/processor/record.ts';
import { choosePartitions, type StreamPartitioner } from '../../src/processor/stream-partitioner.ts';
import { Serdes } from '../../src/serdes/serdes.ts';

function send(partitioner: StreamPartitioner<unknown, unknown>, key: string, width: number | undefined) {
  const sent: OutputRecord[] = [];
  const collector: RecordCollector = { send: (r) => sent.push(r) };
  const sink = {
    name: 'to-out',
    keySerde: Serdes.String(),
    valueSerde: Serdes.String(),
    partitioner: sinkPartitioner(partitioner, 'to-out'),
  };
  const count = sendSerialized(
    collector,
    sink,
    'out',
    new Record<unknown, unknown>(key, 'v', 7),
    Number.POSITIVE_INFINITY,
    () => width,
  );
  return { count, partitions: sent.map((r) => r.partition) };
}

describe('choosePartitions', () => {
  const seen: unknown[] = [];
  const byLength: StreamPartitioner<string, string> = (topic, key, value, n) => {
    seen.push([topic, key, value, n]);
    return key.length % n;
  };

  it('passes topic, key, value and the partition count to a function (Java’s lambda)', () => {
    expect(choosePartitions(byLength, 'out', 'abcd', 'v', 3, 'sink s')).toEqual([1]);
    expect(seen).toEqual([['out', 'abcd', 'v', 3]]);
  });

  it('takes an object with partitions() (KIP-837) or a function returning a set, deduplicating it', () => {
    expect(choosePartitions(() => new Set([3, 1]), 't', 'k', 'v', 4, 's')).toEqual([3, 1]);
    expect(choosePartitions({ partitions: () => new Set([0, 2, 3]) }, 't', 'k', 'v', 4, 's')).toEqual([
      0, 2, 3,
    ]);
    expect(choosePartitions({ partitions: () => [1, 1, 0] }, 't', 'k', 'v', 4, 's')).toEqual([1, 0]);
  });

  it('leaves null or undefined to the default partitioner, and an empty set chooses none', () => {
    expect(choosePartitions(() => null, 't', 'k', 'v', 4, 's')).toBeUndefined();
    expect(choosePartitions({ partitions: () => undefined }, 't', 'k', 'v', 4, 's')).toBeUndefined();
    expect(choosePartitions({ partitions: () => new Set<number>() }, 't', 'k', 'v', 4, 's')).toEqual([]);
  });

  it('names the sink, the topic and the valid range when a partition is out of range or not an integer', () => {
    expect(() => choosePartitions(() => 4, 'out', 'k', 'v', 4, 'sink to-out')).toThrow(StreamsError);
    expect(() => choosePartitions(() => 4, 'out', 'k', 'v', 4, 'sink to-out')).toThrow(
      /sink to-out chose partition 4 of topic out, which has 4 partition\(s\): return an integer from 0 to 3/,
    );
    expect(() => choosePartitions(() => -1, 'out', 'k', 'v', 4, 's')).toThrow(/partition -1/);
    expect(() => choosePartitions({ partitions: () => [0, 1.5] }, 'out', 'k', 'v', 4, 's')).toThrow(
      /partition 1.5/,
    );
  });
});

describe('sendSerialized with a StreamPartitioner', () => {
  it('writes the record to the one partition chosen', () => {
    expect(send(() => 2, 'k', 3)).toEqual({ count: 1, partitions: [2] });
  });

  it('writes one copy per partition of a multicast set', () => {
    expect(send({ partitions: () => new Set([0, 2]) }, 'k', 3)).toEqual({ count: 2, partitions: [0, 2] });
  });

  it('leaves the partition to the default partitioner when the partitioner returns undefined', () => {
    expect(send(() => undefined, 'k', 3)).toEqual({ count: 1, partitions: [undefined] });
  });

  it('sends nothing for an empty set (the task counts the record as dropped)', () => {
    expect(send({ partitions: () => [] }, 'k', 3)).toEqual({ count: 0, partitions: [] });
  });

  it('says to create the topic first when its partition count is unknown', () => {
    expect(() => send(() => 0, 'k', undefined)).toThrow(
      /Sink to-out has a StreamPartitioner, but the partition count of topic out is not known/,
    );
  });
});

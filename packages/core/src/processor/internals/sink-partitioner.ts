// How a sink picks a record's partition(s): a user's StreamPartitioner (Produced, Repartitioned,
// Topology.addSink), or the foreign-key join's own choice; absent, the default partitioner
// (murmur2 of the key bytes, in record-collector.ts or the producer).
import { choosePartitions, type StreamPartitioner } from '../stream-partitioner.ts';

/**
 * Picks a record's partition(s) at a sink from the record itself: a partition, a list (maybe
 * empty: the record is dropped), or undefined for the default partitioner. `numPartitions` is
 * asked only by a partitioner that needs the topic's partition count (it throws when unknown);
 * the foreign-key join sends each response back to the partition its request came from without it.
 */
export type SinkPartitioner = (
  key: unknown,
  value: unknown,
  topic: string,
  numPartitions: () => number,
) => number | readonly number[] | undefined;

/** A user's StreamPartitioner as a sink's partitioner; its choice is checked against the topic's count. */
export function sinkPartitioner(
  partitioner: StreamPartitioner<unknown, unknown> | undefined,
  sinkName: string,
): SinkPartitioner | undefined {
  if (partitioner === undefined) return undefined;
  return (key, value, topic, numPartitions) =>
    choosePartitions(partitioner, topic, key, value, numPartitions(), `sink ${sinkName}`);
}

// Kafka Streams' StreamPartitioner (KIP-837): picks the partition(s) of the sink topic a record is
// written to, from the record's key and value (not their bytes) and the topic's partition count.
import { StreamsError } from '../errors.ts';

/**
 * Java's `partitions(topic, key, value, numPartitions)` as a function: a set (or any iterable) of
 * partitions, one partition as a number (what Java's `partition()` returned before 4.0), or
 * null/undefined for the default partitioner. Declared through a method so that it is bivariant as
 * Serde's methods are: a `Produced<string, V>` stays assignable where a `Produced<string | null, V>` is.
 */
export type StreamPartitionerFunction<K, V> = {
  partitions(topic: string, key: K, value: V, numPartitions: number): PartitionerResult;
}['partitions'];

/** What a partitioner returns: partitions, one partition, or null/undefined for the default. */
export type PartitionerResult = Iterable<number> | number | null | undefined;

/**
 * Determines which partition(s) of a sink topic a record goes to (Kafka Streams' StreamPartitioner),
 * on `Produced.streamPartitioner`, `Repartitioned.streamPartitioner`, `Topology.addSink` and
 * `KafkaStreams.queryMetadataForKey`: a function, as Java's lambda, or an object with
 * `partitions()`. A set of partitions sends the record to each (KIP-837 multicast), an empty set
 * drops it (counted in the dropped-records metric), and null/undefined leave the choice to the
 * default partitioner (murmur2 of the key bytes, as Java's producer). A partition outside
 * `[0, numPartitions)` is an error.
 */
export type StreamPartitioner<K, V> =
  | StreamPartitionerFunction<K, V>
  | { partitions: StreamPartitionerFunction<K, V> };

/** What a partitioner chose: undefined for the default partitioner, else the distinct partitions (maybe none). */
export type PartitionChoice = readonly number[] | undefined;

/** Whether `p` has the shape of a StreamPartitioner (a clear error at build time otherwise). */
export function checkStreamPartitioner(p: unknown, where: string): void {
  if (p === undefined) return;
  const ok =
    typeof p === 'function' ||
    (typeof p === 'object' && p !== null && typeof (p as { partitions?: unknown }).partitions === 'function');
  if (!ok) {
    throw new StreamsError(
      `The streamPartitioner of ${where} must be a function (topic, key, value, numPartitions) => partition, ` +
        'or an object with partitions()',
    );
  }
}

/**
 * Asks the partitioner for a record's partitions (Kafka Streams' RecordCollectorImpl.send): each
 * must be an integer in `[0, numPartitions)`, else a StreamsError that names the sink and topic.
 */
export function choosePartitions<K, V>(
  partitioner: StreamPartitioner<K, V>,
  topic: string,
  key: K,
  value: V,
  numPartitions: number,
  where: string,
): PartitionChoice {
  const chosen =
    typeof partitioner === 'function'
      ? partitioner(topic, key, value, numPartitions)
      : partitioner.partitions(topic, key, value, numPartitions);
  if (chosen === null || chosen === undefined) return undefined;
  const list = typeof chosen === 'number' ? [chosen] : [...chosen];
  const distinct = [...new Set(list)];
  for (const p of distinct) {
    if (!Number.isInteger(p) || p < 0 || p >= numPartitions) {
      throw new StreamsError(
        `The StreamPartitioner of ${where} chose partition ${String(p)} of topic ${topic}, which has ` +
          `${numPartitions} partition(s): return an integer from 0 to ${numPartitions - 1}, ` +
          'or null for the default partitioner',
      );
    }
  }
  return distinct;
}

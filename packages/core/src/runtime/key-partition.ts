// Which partition of a store's sub-topology holds a key (Kafka Streams' StreamsMetadataState
// getKeyQueryMetadataForKey): murmur2 of the key's bytes, as the default partitioner wrote it, or
// the StreamPartitioner the app wrote the topic with (queryMetadataForKey's partitioner overload).
import { StreamsError } from '../errors.ts';
import { partitionForKey } from '../processor/internals/partitioner.ts';
import { choosePartitions, type StreamPartitioner } from '../processor/stream-partitioner.ts';
import type { Serde } from '../serdes/serde.ts';

/** A key serde (Java's Serializer overload) or the partitioner the key's records were written with. */
export type KeyRouting<K> = Serde<K> | StreamPartitioner<K, unknown>;

function isSerde<K>(routing: KeyRouting<K>): routing is Serde<K> {
  return typeof routing === 'object' && typeof (routing as Serde<K>).serialize === 'function';
}

/**
 * The partition of `key` among `numPartitions` (the widest of the sub-topology's source topics,
 * `topic`). A partitioner must choose exactly one partition: a key multicast to several, dropped
 * or left to the default partitioner cannot be routed (Java throws IllegalArgumentException).
 */
export function partitionOfKey<K>(
  key: K,
  routing: KeyRouting<K>,
  topic: string,
  numPartitions: number,
  storeName: string,
): number {
  if (isSerde(routing)) return partitionForKey(routing.serialize(key, topic), numPartitions);
  const chosen = choosePartitions(
    routing,
    topic,
    key,
    null,
    numPartitions,
    `queryMetadataForKey('${storeName}')`,
  );
  if (chosen?.length !== 1) {
    throw new StreamsError(
      `The StreamPartitioner given to queryMetadataForKey('${storeName}') chose ` +
        `${chosen === undefined ? 'the default partitioner' : `${chosen.length} partitions`} for the key: ` +
        'it must choose exactly one partition, as Kafka Streams requires a singleton set here (pass the key ' +
        'serde instead when the default partitioner wrote the key)',
    );
  }
  return chosen[0]!;
}

// Kafka's default partitioner: murmur2 of the serialized key, as Java's producer and kafkajs'
// DefaultPartitioner compute it, so that a key's partition is the same whoever wrote it.

export function murmur2(data: Uint8Array): number {
  const length = data.length;
  const m = 0x5bd1e995;
  let h = 0x9747b28c ^ length;
  const whole = length & ~3;
  for (let i = 0; i < whole; i += 4) {
    let k = data[i]! | (data[i + 1]! << 8) | (data[i + 2]! << 16) | (data[i + 3]! << 24);
    k = Math.imul(k, m);
    k ^= k >>> 24;
    k = Math.imul(k, m);
    h = Math.imul(h, m) ^ k;
  }
  switch (length & 3) {
    // biome-ignore lint/suspicious/noFallthroughSwitchClause: murmur2 folds in the tail bytes by falling through
    case 3:
      h ^= data[whole + 2]! << 16;
    // biome-ignore lint/suspicious/noFallthroughSwitchClause: as above
    case 2:
      h ^= data[whole + 1]! << 8;
    case 1:
      h ^= data[whole]!;
      h = Math.imul(h, m);
  }
  h ^= h >>> 13;
  h = Math.imul(h, m);
  h ^= h >>> 15;
  return h | 0;
}

export function partitionForKey(key: Uint8Array, numPartitions: number): number {
  return (murmur2(key) & 0x7fffffff) % numPartitions;
}

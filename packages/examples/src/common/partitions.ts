import { partitionForKey, Serdes } from '@kstreams/core';

/** For each partition p of `partitions`, a string key `${prefix}${i}` that the default partitioner puts in p. */
export function keysForPartitions(partitions: number, prefix: string): string[] {
  const keys: (string | undefined)[] = new Array(partitions).fill(undefined);
  let found = 0;
  for (let i = 0; found < partitions; i++) {
    const key = `${prefix}${i}`;
    const p = partitionForKey(Serdes.String().serialize(key)!, partitions);
    if (keys[p] === undefined) {
      keys[p] = key;
      found++;
    }
  }
  return keys as string[];
}

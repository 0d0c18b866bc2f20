/** For each partition p of `partitions`, a string key `${prefix}${i}` that the default partitioner puts in p. */
export declare function keysForPartitions(partitions: number, prefix: string): string[];

// The byte records a task exchanges with the outside: what it reads, what it writes, and where it
// writes it. In a module of their own so that kafka/, runtime/ and testing/ can share them without
// depending on StreamTask.

export interface InputRecord {
  topic: string;
  partition: number;
  offset: number;
  key: Buffer | null;
  value: Buffer | null;
  timestamp: number;
  headers?: { [name: string]: Buffer | string | undefined };
}

export interface OutputRecord {
  topic: string;
  key: Buffer | null;
  value: Buffer | null;
  timestamp: number;
  headers?: { [name: string]: Buffer | string | undefined };
  /** Undefined: the runtime partitions by murmur2 of the key bytes. */
  partition?: number;
}

export type DeserializationHandlerResponse = 'continue' | 'fail';

/** One string per topic-partition, for maps keyed by partition across topics. */
export const topicPartitionKey = (topic: string, partition: number): string => `${topic}\u0000${partition}`;

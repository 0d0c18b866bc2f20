import type { Headers } from './record.ts';

/** What a dynamic sink sees of the record being written. */
export interface RecordContext {
  /** Undefined when the record was forwarded by a punctuator. */
  readonly topic: string | undefined;
  readonly partition: number | undefined;
  readonly offset: number | undefined;
  readonly timestamp: number;
  readonly headers: Headers;
}

/** Picks a sink's topic per record. */
export type TopicNameExtractor<K, V> = (key: K, value: V, context: RecordContext) => string;

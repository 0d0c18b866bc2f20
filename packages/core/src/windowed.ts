/** A time interval: `start` inclusive, `end` exclusive for time windows (Kafka Streams' Window). */
export interface Window {
  readonly start: number;
  readonly end: number;
}

/** A key of a windowed aggregation: the record key and its window (Kafka Streams' Windowed<K>). */
export interface Windowed<K> {
  readonly key: K;
  readonly window: Window;
}

/** A key and a value, as `map`, `flatMap` and `KTable.groupBy` return them. */
export interface KeyValue<K, V> {
  readonly key: K;
  readonly value: V;
}

export function keyValue<K, V>(key: K, value: V): KeyValue<K, V> {
  return { key, value };
}

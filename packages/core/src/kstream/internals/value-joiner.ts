/** Kafka Streams' ValueJoiner: the two values (null for the missing side of a left or outer join). */
export type ValueJoiner<V1, V2, R> = (value1: V1, value2: V2) => R;

/** Kafka Streams' ValueJoinerWithKey: the join key first (read-only; changing it breaks the join). */
export type ValueJoinerWithKey<K, V1, V2, R> = (key: K, value1: V1, value2: V2) => R;

/**
 * One form for the join processors. JavaScript has no overloads by type, so the form is told by
 * the function's declared parameters: a joiner whose `.length === 3` is a ValueJoinerWithKey,
 * anything else a ValueJoiner (the rule every join of kstreams uses).
 */
export function toJoinerWithKey<K, V1, V2, R>(
  joiner: ValueJoiner<V1, V2, R> | ValueJoinerWithKey<K, V1, V2, R>,
): ValueJoinerWithKey<K, V1, V2, R> {
  if (joiner.length === 3) return joiner as ValueJoinerWithKey<K, V1, V2, R>;
  const plain = joiner as ValueJoiner<V1, V2, R>;
  return (_key, value1, value2) => plain(value1, value2);
}

// Kafka Streams' AutoOffsetReset (KIP-1106): where a source starts reading a partition for which
// the application's group has no committed offset. Applied only there: a committed offset always
// wins.

export type AutoOffsetReset =
  | { readonly type: 'earliest' }
  | { readonly type: 'latest' }
  | { readonly type: 'none' }
  /** The first offset whose timestamp is at or after now - durationMs; the log end if none is. */
  | { readonly type: 'by_duration'; readonly durationMs: number };

/** Kafka Streams' AutoOffsetReset.earliest(), latest(), none() and byDuration(duration). */
export const AutoOffsetReset = {
  /** The log start: everything the topic still holds (the default). */
  earliest: (): AutoOffsetReset => ({ type: 'earliest' }),
  /** The log end: only records written from now on. */
  latest: (): AutoOffsetReset => ({ type: 'latest' }),
  /** No reset: a partition without a committed offset fails the task. */
  none: (): AutoOffsetReset => ({ type: 'none' }),
  /** The records of the last `durationMs` (Kafka's offsetsForTimes of now - durationMs). */
  byDuration: (durationMs: number): AutoOffsetReset => ({ type: 'by_duration', durationMs }),
};

/** What the config and Consumed accept: a policy, or its name. */
export type AutoOffsetResetLike = 'earliest' | 'latest' | 'none' | AutoOffsetReset;

/** Undefined when `value` is not a policy (the caller says what to change). */
export function toAutoOffsetReset(value: unknown): AutoOffsetReset | undefined {
  if (value === 'earliest' || value === 'latest' || value === 'none') return { type: value };
  if (typeof value !== 'object' || value === null) return undefined;
  const { type, durationMs } = value as { type?: unknown; durationMs?: unknown };
  if (type === 'earliest' || type === 'latest' || type === 'none') return { type };
  if (
    type === 'by_duration' &&
    typeof durationMs === 'number' &&
    Number.isInteger(durationMs) &&
    durationMs >= 0
  )
    return { type, durationMs };
  return undefined;
}

export const AUTO_OFFSET_RESET_EXPECTED =
  "'earliest', 'latest', 'none' or AutoOffsetReset.byDuration(ms) (an integer >= 0)";

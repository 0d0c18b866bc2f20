// How far behind each instance's copy of a task's state is: what the leader computes from the
// members' task offset sums (kafka/subscription-info.ts) and the changelogs' end offsets, and what
// the high-availability assignor decides with (KIP-441). Pure, so that it is tested without a broker.

/** Kafka Streams' Task.LATEST_OFFSET: the offset sum a member reports for a task it runs as active. */
export const LATEST_OFFSET = -2;
/** Kafka Streams' SubscriptionInfo.UNKNOWN_OFFSET_SUM: the member holds state of unknown position. */
export const UNKNOWN_OFFSET_SUM = -3;

/**
 * A client's lag on one stateful task: records behind the changelogs' end, `'running'` when it ran
 * the task as active until this rebalance (Kafka Streams' LATEST_OFFSET lag), `'unknown'` when it
 * holds state of an unknown position. A client that holds no state of the task has the whole
 * changelog as lag (the task's end offset sum).
 */
export type TaskLag = number | 'running' | 'unknown';

/** A task's changelog partitions: what its end offset sum adds up. */
export interface TaskChangelogs {
  id: string;
  changelogs: Array<{ topic: string; partition: number }>;
}

/** Per stateful task, the sum of its changelog partitions' end offsets. */
export function endOffsetSums(
  tasks: readonly TaskChangelogs[],
  endOffset: (topic: string, partition: number) => number,
): Map<string, number> {
  const sums = new Map<string, number>();
  for (const task of tasks) {
    if (task.changelogs.length === 0) continue;
    sums.set(task.id, saturatingSum(task.changelogs.map((c) => endOffset(c.topic, c.partition))));
  }
  return sums;
}

/**
 * Kafka Streams' ClientState.computeTaskLags: for every stateful task, end offset sum − the
 * client's offset sum. A task the client reported nothing for lags by its whole changelog; an offset
 * sum above the end (the changelog was recreated or truncated) also counts as the whole changelog,
 * so the assignor prefers any other client's state, which this one must rebuild from scratch.
 */
export function computeTaskLags(
  offsetSums: ReadonlyMap<string, number>,
  endSums: ReadonlyMap<string, number>,
): Map<string, TaskLag> {
  const lags = new Map<string, TaskLag>();
  for (const [task, end] of endSums) {
    const sum = offsetSums.get(task) ?? 0;
    if (sum === LATEST_OFFSET) lags.set(task, 'running');
    else if (sum === UNKNOWN_OFFSET_SUM) lags.set(task, 'unknown');
    else if (sum < 0 || sum > end) lags.set(task, end);
    else lags.set(task, end - sum);
  }
  return lags;
}

/** Offsets are int64 in Kafka; a sum that leaves JavaScript's exact range is capped, as Java's at Long.MAX_VALUE. */
export function saturatingSum(offsets: readonly number[]): number {
  let sum = 0;
  for (const offset of offsets) {
    sum += Math.max(0, offset);
    if (sum >= Number.MAX_SAFE_INTEGER) return Number.MAX_SAFE_INTEGER;
  }
  return sum;
}

/**
 * Orders clients from most to least caught up: a running active first, then by records behind;
 * `'unknown'` after every known lag and a client with no state last. (Java sorts its UNKNOWN_OFFSET_SUM
 * of -3 first; kstreams does not let a state of unknown position outrank a known one.)
 */
export function lagRank(lag: TaskLag | undefined): number {
  if (lag === 'running') return -1;
  if (lag === undefined) return Number.MAX_SAFE_INTEGER;
  if (lag === 'unknown') return Number.MAX_SAFE_INTEGER - 1;
  return Math.min(lag, Number.MAX_SAFE_INTEGER - 2);
}

/**
 * Caught up (KIP-441): ran the task as active, or is at most `acceptableRecoveryLag` records behind;
 * with an unbounded lag (Number.MAX_SAFE_INTEGER, Java's Long.MAX_VALUE) every client is.
 */
export function isCaughtUp(lag: TaskLag | undefined, acceptableRecoveryLag: number): boolean {
  if (acceptableRecoveryLag >= Number.MAX_SAFE_INTEGER) return true;
  if (lag === 'running') return true;
  return typeof lag === 'number' && lag >= 0 && lag <= acceptableRecoveryLag;
}

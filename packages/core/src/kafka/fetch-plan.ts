// The decisions of the partition fetcher (partition-fetcher.ts), kept free of I/O so that unit
// tests drive them without a broker: which partitions go into the next fetch to which broker, what
// a fetched partition hands out and where its position goes, and what a partition's error code
// asks for.
import { fetchedOffset } from './fetch-decoding.ts';

/** One assigned partition as the fetcher tracks it. */
export interface PartitionState {
  readonly topic: string;
  readonly partition: number;
  /** The next offset to fetch; undefined until a seek (or an offset with the assignment). */
  position: number | undefined;
  paused: boolean;
  /** A fetch holding it is in flight, or its batch waits for or is inside onBatch. */
  busy: boolean;
  /** Not fetched before this time (a back-off after an error answer). */
  retryAt: number;
  /** Bumped by every seek, pause and unassign: a batch fetched before is stale. */
  epoch: number;
  /** Bumped by seek and unassign only: the batch's resolved offsets no longer move the position. */
  seekEpoch: number;
  /** Consecutive error answers, for the back-off. */
  failures: number;
}

export function newPartitionState(topic: string, partition: number, offset?: number): PartitionState {
  return {
    topic,
    partition,
    position: offset,
    paused: false,
    busy: false,
    retryAt: 0,
    epoch: 0,
    seekEpoch: 0,
    failures: 0,
  };
}

export interface FetchPlan {
  /** Per leader broker (node id), the partitions of its next fetch. */
  byBroker: Map<number, PartitionState[]>;
  /** Fetchable partitions whose leader is not known: metadata must be refreshed. */
  leaderless: PartitionState[];
}

/** Whether the partition may go into a fetch now. */
export function fetchable(state: PartitionState, now: number): boolean {
  return state.position !== undefined && !state.paused && !state.busy && state.retryAt <= now;
}

/**
 * The next fetches: every fetchable partition, grouped by its leader, for the brokers with no
 * fetch in flight (one fetch per broker at a time: a broker answers a connection's requests in
 * order, and the partitions of a broker with a fetch out wait for its answer).
 */
export function planFetches(
  states: Iterable<PartitionState>,
  leaderOf: (state: PartitionState) => number | undefined,
  busyBrokers: ReadonlySet<number>,
  now: number,
): FetchPlan {
  const byBroker = new Map<number, PartitionState[]>();
  const leaderless: PartitionState[] = [];
  for (const state of states) {
    if (!fetchable(state, now)) continue;
    const leader = leaderOf(state);
    if (leader === undefined) {
      leaderless.push(state);
      continue;
    }
    if (busyBrokers.has(leader)) continue;
    const list = byBroker.get(leader);
    if (list === undefined) byBroker.set(leader, [state]);
    else list.push(state);
  }
  return { byBroker, leaderless };
}

/** The earliest time a partition held back by a back-off may be fetched (undefined: none waits). */
export function nextRetryAt(states: Iterable<PartitionState>, now: number): number | undefined {
  let next: number | undefined;
  for (const s of states) {
    if (s.retryAt > now && s.position !== undefined && !s.paused && !s.busy)
      next = next === undefined ? s.retryAt : Math.min(next, s.retryAt);
  }
  return next;
}

/** Kafka error codes the fetcher acts on by name. */
export const ErrorCode = {
  NONE: 0,
  OFFSET_OUT_OF_RANGE: 1,
  UNKNOWN_TOPIC_OR_PARTITION: 3,
  LEADER_NOT_AVAILABLE: 5,
  NOT_LEADER_OR_FOLLOWER: 6,
  REPLICA_NOT_AVAILABLE: 9,
  KAFKA_STORAGE_ERROR: 56,
  FENCED_LEADER_EPOCH: 74,
  UNKNOWN_LEADER_EPOCH: 75,
  OFFSET_NOT_AVAILABLE: 78,
  UNKNOWN_TOPIC_ID: 100,
} as const;

/** Answers that mean the client's metadata is stale: the leader moved, or is being elected. */
const STALE_METADATA: ReadonlySet<number> = new Set([
  ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
  ErrorCode.LEADER_NOT_AVAILABLE,
  ErrorCode.NOT_LEADER_OR_FOLLOWER,
  ErrorCode.REPLICA_NOT_AVAILABLE,
  ErrorCode.KAFKA_STORAGE_ERROR,
  ErrorCode.FENCED_LEADER_EPOCH,
  ErrorCode.UNKNOWN_LEADER_EPOCH,
  ErrorCode.OFFSET_NOT_AVAILABLE,
  ErrorCode.UNKNOWN_TOPIC_ID,
]);

export type PartitionErrorAction = 'none' | 'refresh-metadata' | 'out-of-range' | 'retry' | 'fatal';

/**
 * What a fetched partition's error code asks for: metadata again (a leader moved or is being
 * elected), the reset policy (the position left the log), another try after a back-off (any other
 * error Kafka calls retriable), or the owner's decision (authorization, corrupt records, ...).
 */
export function partitionErrorAction(code: number, retriable: boolean): PartitionErrorAction {
  if (code === ErrorCode.NONE) return 'none';
  if (code === ErrorCode.OFFSET_OUT_OF_RANGE) return 'out-of-range';
  if (STALE_METADATA.has(code)) return 'refresh-metadata';
  return retriable ? 'retry' : 'fatal';
}

/** The pause before the next try after `failures` consecutive failures (doubling, capped). */
export function backoffMs(failures: number, initialMs = 100, maxMs = 5_000): number {
  return Math.min(maxMs, initialMs * 2 ** Math.max(0, Math.min(failures - 1, 16)));
}

/** A record as kafkajs' (and core's) fetch decoding returns it. */
export interface FetchedRecordLike {
  readonly offset: string;
  readonly isControlRecord: boolean;
  readonly batchContext?: { readonly firstOffset: string; readonly lastOffsetDelta: number };
}

export interface FetchedRange<R> {
  /** The records to hand out: at or past the fetch offset, no control records. */
  messages: R[];
  /** The first offset fetched at or past the fetch offset. */
  firstOffset: number;
  /**
   * The last offset the fetch covered: the last record's batch's last offset, which lies past the
   * last record when compaction removed the batch's tail, and past the last message when the range
   * ends in transaction markers or aborted records.
   */
  lastOffset: number;
}

/**
 * What one partition's fetched records give; undefined when they end before the fetch offset.
 * Records before it come when a compressed batch starts before it (they were handed out already);
 * a batch that ends at or past it with no record there (compaction removed its tail) moves the
 * position past it with nothing to hand out. Aborted records must already be marked as control
 * records (read-committed.ts' hideAbortedRecords).
 */
export function fetchedRange<R extends FetchedRecordLike>(
  fetchOffset: number,
  records: readonly R[],
): FetchedRange<R> | undefined {
  const messages: R[] = [];
  let first: number | undefined;
  let last = -1;
  for (const r of records) {
    const offset = fetchedOffset(r);
    const context = r.batchContext;
    const batchEnd = context === undefined ? offset : Number(context.firstOffset) + context.lastOffsetDelta;
    last = Math.max(last, offset, batchEnd);
    if (offset < fetchOffset) continue;
    first ??= offset;
    if (!r.isControlRecord) messages.push(r);
  }
  if (last < fetchOffset) return undefined;
  return { messages, firstOffset: first ?? fetchOffset, lastOffset: last };
}

/**
 * The partition's end as a fetch tells it: the last stable offset under read_committed (when the
 * response carries one), else the high watermark (as fetch-lag.ts' fetchedEnd).
 */
export function fetchedEndOffset(
  readCommitted: boolean,
  highWatermark: number,
  lastStableOffset: number | undefined,
): number {
  return readCommitted && lastStableOffset !== undefined && lastStableOffset >= 0
    ? lastStableOffset
    : highWatermark;
}

/**
 * The partitions of a fetch, in the order of this turn: a broker fills an answer's byte budget in
 * request order, so the order rotates between fetches to give every partition its turn (KIP-74).
 */
export function rotate<T>(items: readonly T[], turn: number): T[] {
  if (items.length === 0) return [];
  const k = turn % items.length;
  return [...items.slice(k), ...items.slice(0, k)];
}

// IQv2 over HTTP, the JSON side: a request body names the query the way Kafka Streams' classes do
// (`{ "type": "KeyQuery", "key": "a" }`), and the answer carries each partition's result or failure
// reason and position. Iterators (range, window and multi-version results) are read into arrays.
import {
  KeyQuery,
  MultiVersionedKeyQuery,
  Position,
  PositionBound,
  type Query,
  type QueryResult,
  RangeQuery,
  type StateQueryResult,
  TimestampedKeyQuery,
  TimestampedRangeQuery,
  VersionedKeyQuery,
  WindowKeyQuery,
  WindowRangeQuery,
} from '@kstreams/core';
import { toJson } from './forwarding.ts';

export const QUERY_TYPES = [
  'KeyQuery',
  'TimestampedKeyQuery',
  'RangeQuery',
  'TimestampedRangeQuery',
  'WindowKeyQuery',
  'WindowRangeQuery',
  'VersionedKeyQuery',
  'MultiVersionedKeyQuery',
] as const;

/** The body of POST /stores/:store/query. */
export interface StateQueryBody {
  query: {
    type: (typeof QUERY_TYPES)[number];
    key?: unknown;
    lower?: unknown;
    upper?: unknown;
    /** Window starts (WindowKeyQuery, WindowRangeQuery) or version times (MultiVersionedKeyQuery), ms. */
    from?: number;
    to?: number;
    asOf?: number;
    order?: 'ASCENDING' | 'DESCENDING';
  };
  /** Only these partitions (default: the key's for a key query, else all). */
  partitions?: number[];
  /** Kafka Streams' PositionBound.at: `{ topic: { partition: offset } }`. */
  positionBound?: Record<string, Record<string, number>>;
  /** How long a partition below the bound is waited for (ms); default 0. */
  timeoutMs?: number;
  requireActive?: boolean;
  /** At most this many entries of an iterator result per partition (default 1000). */
  limit?: number;
}

export const DEFAULT_RESULT_LIMIT = 1_000;

const isTime = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);

/** The query of a body; a string is the 400's message. `parseKey` turns a string key into the store's type. */
export function queryOf(
  q: StateQueryBody['query'] | undefined,
  parseKey: (key: unknown) => unknown,
): Query<unknown> | string {
  if (q === null || typeof q !== 'object')
    return 'the body needs a query: { "query": { "type": "KeyQuery", "key": "..." } }';
  if (!QUERY_TYPES.includes(q.type))
    return `query.type must be one of ${QUERY_TYPES.join(', ')}, got ${JSON.stringify(q.type)}`;
  for (const field of ['from', 'to', 'asOf'] as const)
    if (q[field] !== undefined && !isTime(q[field]))
      return `query.${field} must be epoch milliseconds (a whole number), got ${JSON.stringify(q[field])}`;
  if (q.order !== undefined && q.order !== 'ASCENDING' && q.order !== 'DESCENDING')
    return `query.order must be ASCENDING or DESCENDING, got ${JSON.stringify(q.order)}`;
  const needsKey = !['RangeQuery', 'TimestampedRangeQuery', 'WindowRangeQuery'].includes(q.type);
  if (needsKey && (q.key === undefined || q.key === null)) return `a ${q.type} needs query.key`;
  const key = q.key === undefined ? undefined : parseKey(q.key);
  const bound = (v: unknown) => (v === undefined || v === null ? undefined : parseKey(v));
  switch (q.type) {
    case 'KeyQuery':
      return KeyQuery.withKey(key);
    case 'TimestampedKeyQuery':
      return TimestampedKeyQuery.withKey(key);
    case 'RangeQuery': {
      const r = RangeQuery.withRange(bound(q.lower), bound(q.upper));
      return q.order === 'DESCENDING'
        ? r.withDescendingKeys()
        : q.order === 'ASCENDING'
          ? r.withAscendingKeys()
          : r;
    }
    case 'TimestampedRangeQuery': {
      const r = TimestampedRangeQuery.withRange(bound(q.lower), bound(q.upper));
      return q.order === 'DESCENDING'
        ? r.withDescendingKeys()
        : q.order === 'ASCENDING'
          ? r.withAscendingKeys()
          : r;
    }
    case 'WindowKeyQuery':
      return WindowKeyQuery.withKeyAndWindowStartRange(key, q.from ?? 0, q.to ?? Number.MAX_SAFE_INTEGER);
    case 'WindowRangeQuery':
      if (key !== undefined) return WindowRangeQuery.withKey(key);
      return WindowRangeQuery.withWindowStartRange(q.from ?? 0, q.to ?? Number.MAX_SAFE_INTEGER);
    case 'VersionedKeyQuery':
      return q.asOf === undefined
        ? VersionedKeyQuery.withKey(key)
        : VersionedKeyQuery.withKey(key).asOf(q.asOf);
    case 'MultiVersionedKeyQuery': {
      let m = MultiVersionedKeyQuery.withKey(key);
      if (q.from !== undefined) m = m.fromTime(q.from);
      if (q.to !== undefined) m = m.toTime(q.to);
      return q.order === 'ASCENDING' ? m.withAscendingTimestamps() : m;
    }
  }
}

/** Whether the query reads one key, which lives in one partition. */
export function keyOfQuery(q: Query<unknown>): { key: unknown } | undefined {
  if (
    q instanceof KeyQuery ||
    q instanceof TimestampedKeyQuery ||
    q instanceof WindowKeyQuery ||
    q instanceof VersionedKeyQuery ||
    q instanceof MultiVersionedKeyQuery
  )
    return { key: q.key };
  if (q instanceof WindowRangeQuery && q.key !== undefined) return { key: q.key };
  return undefined;
}

/** The PositionBound of a body (a string: the 400's message). */
export function boundOf(json: unknown): PositionBound | string {
  if (json === undefined || json === null) return PositionBound.unbounded();
  try {
    return PositionBound.at(Position.fromJson(json));
  } catch (error) {
    return `positionBound: ${(error as Error).message}`;
  }
}

/** One partition's result as JSON. */
export interface PartitionResultJson {
  success: boolean;
  result?: unknown;
  /** An iterator result stopped at the limit. */
  truncated?: boolean;
  failureReason?: string;
  failureMessage?: string;
  position: Record<string, Record<string, number>>;
  /** The instance that answered (its applicationServer). */
  host: string | null;
  executionInfo?: readonly string[];
}

function isIterator(v: unknown): v is AsyncIterableIterator<unknown> {
  return typeof v === 'object' && v !== null && Symbol.asyncIterator in v;
}

export async function partitionResultJson(
  r: QueryResult<unknown>,
  host: string | null,
  limit: number,
): Promise<PartitionResultJson> {
  const position = (r.getPosition() ?? Position.emptyPosition()).toJSON();
  const info = r.getExecutionInfo().length > 0 ? { executionInfo: r.getExecutionInfo() } : {};
  if (r.isFailure())
    return {
      success: false,
      failureReason: r.getFailureReason()!,
      failureMessage: r.getFailureMessage()!,
      position,
      host,
      ...info,
    };
  const value = r.getResult();
  if (!isIterator(value))
    return { success: true, result: value === undefined ? null : toJson(value), position, host, ...info };
  const items: unknown[] = [];
  let truncated = false;
  for await (const item of value) {
    if (items.length >= limit) {
      truncated = true;
      break;
    }
    items.push(toJson(item));
  }
  return { success: true, result: items, ...(truncated && { truncated }), position, host, ...info };
}

export async function stateQueryResultJson(
  result: StateQueryResult<unknown>,
  host: string | null,
  limit: number,
): Promise<Record<string, PartitionResultJson>> {
  const out: Record<string, PartitionResultJson> = {};
  for (const [partition, r] of result.getPartitionResults())
    out[partition] = await partitionResultJson(r, host, limit);
  return out;
}

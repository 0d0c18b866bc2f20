// How one task's store answers one IQv2 query (Kafka Streams' StoreQueryUtils.handleBasicQueries
// and each store's query()): the store's kind decides which queries it knows; any other is
// UNKNOWN_QUERY_TYPE, and a store that throws is STORE_EXCEPTION.
import type { SessionStore, TypedKeyValueStore, TypedVersionedKeyValueStore } from '@kstreams/state-store';
import {
  KeyQuery,
  MultiVersionedKeyQuery,
  type Query,
  RangeQuery,
  type ResultOrder,
  TimestampedKeyQuery,
  TimestampedRangeQuery,
  VersionedKeyQuery,
  WindowKeyQuery,
  WindowRangeQuery,
} from '../query/queries.ts';
import { QueryResult } from '../query/results.ts';
import type { StateStore } from '../state/state-store.ts';
import type { StoreBuilder } from '../state/store-builder.ts';
import { timestampedView } from '../state/value-and-timestamp.ts';
import type { ReadOnlyWindowStore } from '../state/window-store.ts';

/** What a store returns for a query it does not take. */
const UNKNOWN = Symbol('unknown query');

async function* fromArray<T>(items: readonly T[]): AsyncIterableIterator<T> {
  yield* items;
}

/** The store reads ascending; DESCENDING collects and reverses (a query's result, not a hot path). */
async function ordered<T>(
  items: AsyncIterableIterator<T>,
  order: ResultOrder,
): Promise<AsyncIterableIterator<T>> {
  if (order !== 'DESCENDING') return items;
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return fromArray(all.reverse());
}

function describe(builder: StoreBuilder): string {
  return `${builder.timestamped === true ? 'timestamped ' : ''}${builder.type} store '${builder.name}'`;
}

async function keyValueQuery(
  builder: StoreBuilder,
  store: StateStore,
  query: Query<unknown>,
): Promise<unknown> {
  const view = store as TypedKeyValueStore<unknown, unknown>;
  if (query instanceof KeyQuery) return view.get(query.key);
  if (query instanceof RangeQuery)
    return ordered(view.range(query.lowerBound, query.upperBound), query.resultOrder);
  if (builder.timestamped !== true) return UNKNOWN;
  if (query instanceof TimestampedKeyQuery) return timestampedView(view).get(query.key);
  if (query instanceof TimestampedRangeQuery)
    return ordered(timestampedView(view).range(query.lowerBound, query.upperBound), query.resultOrder);
  return UNKNOWN;
}

async function windowQuery(store: StateStore, query: Query<unknown>): Promise<unknown> {
  const view = store as unknown as ReadOnlyWindowStore<unknown, unknown>;
  if (query instanceof WindowKeyQuery) return view.fetch(query.key, query.timeFrom, query.timeTo);
  // Window stores answer WindowRangeQuery by window start only, as in Kafka Streams.
  if (query instanceof WindowRangeQuery && query.timeFrom !== undefined && query.timeTo !== undefined)
    return view.fetchAll(query.timeFrom, query.timeTo);
  return UNKNOWN;
}

async function* sessionsAsWindowed<K, V>(store: SessionStore<K, V>, key: K) {
  for await (const { key: s, value } of store.fetch(key))
    yield { key: { key: s.key, window: { start: s.start, end: s.end } }, value };
}

async function sessionQuery(store: StateStore, query: Query<unknown>): Promise<unknown> {
  // Session stores answer WindowRangeQuery.withKey only, as in Kafka Streams.
  if (query instanceof WindowRangeQuery && query.key !== undefined)
    return sessionsAsWindowed(store as unknown as SessionStore<unknown, unknown>, query.key);
  return UNKNOWN;
}

async function versionedQuery(store: StateStore, query: Query<unknown>): Promise<unknown> {
  const view = store as unknown as TypedVersionedKeyValueStore<unknown, unknown>;
  if (query instanceof VersionedKeyQuery) {
    const found =
      query.asOfTimestamp === undefined ? view.get(query.key) : view.get(query.key, query.asOfTimestamp);
    return found ?? undefined;
  }
  if (query instanceof MultiVersionedKeyQuery) {
    const from = query.fromTimestamp ?? Number.MIN_SAFE_INTEGER;
    const to = query.toTimestamp ?? Number.MAX_SAFE_INTEGER;
    const versions = view.versions(query.key, from, to);
    // Kafka Streams' RocksDB store answers newest first unless asked for ascending timestamps.
    return fromArray(query.resultOrder === 'ASCENDING' ? versions : versions.reverse());
  }
  return UNKNOWN;
}

/** Each store kind answers the queries it knows, UNKNOWN for any other. */
function run(builder: StoreBuilder, store: StateStore, query: Query<unknown>): Promise<unknown> {
  switch (builder.type) {
    case 'key-value':
      return keyValueQuery(builder, store, query);
    case 'window':
      return windowQuery(store, query);
    case 'session':
      return sessionQuery(store, query);
    case 'versioned':
      return versionedQuery(store, query);
  }
}

/** Answers `query` from `store` (a view of the committed data of one task's store). */
export async function executeQuery<R>(
  builder: StoreBuilder,
  store: StateStore,
  query: Query<R>,
  executionInfo: string[] | undefined,
): Promise<QueryResult<R>> {
  const started = process.hrtime.bigint();
  let result: QueryResult<R>;
  try {
    const value = await run(builder, store, query as Query<unknown>);
    result =
      value === UNKNOWN
        ? QueryResult.forFailure(
            'UNKNOWN_QUERY_TYPE',
            `This store (${describe(builder)}) doesn't know how to execute the given query (${query.type})${hint(builder, query)}`,
          )
        : QueryResult.forResult(value as R);
  } catch (error) {
    result = QueryResult.forFailure(
      'STORE_EXCEPTION',
      `${describe(builder)} failed: ${(error as Error).message}`,
    );
  }
  executionInfo?.push(`Handled in ${describe(builder)} in ${process.hrtime.bigint() - started}ns`);
  return result;
}

/** Which queries the store does take, for the failure message. */
function hint(builder: StoreBuilder, query: Query<unknown>): string {
  if (builder.type === 'window' && query instanceof WindowRangeQuery)
    return ': window stores take WindowRangeQuery.withWindowStartRange only';
  if (builder.type === 'session' && query instanceof WindowRangeQuery)
    return ': session stores take WindowRangeQuery.withKey only';
  const taken: Record<StoreBuilder['type'], string> = {
    'key-value':
      builder.timestamped === true
        ? 'KeyQuery, RangeQuery, TimestampedKeyQuery, TimestampedRangeQuery'
        : 'KeyQuery, RangeQuery',
    window: 'WindowKeyQuery, WindowRangeQuery.withWindowStartRange',
    session: 'WindowRangeQuery.withKey',
    versioned: 'VersionedKeyQuery, MultiVersionedKeyQuery',
  };
  return `; it takes ${taken[builder.type]}`;
}

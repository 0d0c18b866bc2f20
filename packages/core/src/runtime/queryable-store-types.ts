// Kafka Streams' QueryableStoreTypes: which face of a store `KafkaStreams.store(name, type)` gives.
import type { SessionStore } from '@kstreams/state-store';
import { type ReadOnlySessionStore, readOnlySessionStore } from '../state/session-store.ts';
import type { StoreType } from '../state/store-builder.ts';
import type { ReadOnlyWindowStore, TypedWindowStore, WindowStoreEntry } from '../state/window-store.ts';
import type { Windowed } from '../windowed.ts';
import {
  committedViews,
  type QueryDeps,
  type ReadOnlyKeyValueStore,
  readOnlyStore,
  requireStoreType,
} from './interactive-queries.ts';

export interface QueryableStoreType<T> {
  readonly storeType: StoreType;
  /** @internal */
  open(deps: QueryDeps, storeName: string): T;
}

export const QueryableStoreTypes = {
  keyValueStore<K, V>(): QueryableStoreType<ReadOnlyKeyValueStore<K, V>> {
    return {
      storeType: 'key-value',
      open(deps, storeName) {
        requireStoreType(deps, storeName, 'key-value');
        return readOnlyStore<K, V>(deps, storeName);
      },
    };
  },
  windowStore<K, V>(): QueryableStoreType<ReadOnlyWindowStore<K, V>> {
    return {
      storeType: 'window',
      open(deps, storeName) {
        requireStoreType(deps, storeName, 'window');
        return acrossTasksWindowStore(storeName, committedViews<TypedWindowStore<K, V>>(deps, storeName));
      },
    };
  },
  /** Sessions by key: fetch(key), findSessions(key, earliestSessionEndTime, latestSessionStartTime). */
  sessionStore<K, V>(): QueryableStoreType<ReadOnlySessionStore<K, V>> {
    return {
      storeType: 'session',
      open(deps, storeName) {
        requireStoreType(deps, storeName, 'session');
        return readOnlySessionStore(storeName, committedViews<SessionStore<K, V>>(deps, storeName));
      },
    };
  },
} as const;

/** A window store over every local task that holds it: a key is in one task, ranges go task by task. */
function acrossTasksWindowStore<K, V>(
  name: string,
  views: () => TypedWindowStore<K, V>[],
): ReadOnlyWindowStore<K, V> {
  async function* each<T>(pick: (s: TypedWindowStore<K, V>) => AsyncIterableIterator<T>) {
    for (const view of views()) yield* pick(view);
  }
  function fetch(key: K, windowStart: number): V | undefined;
  function fetch(key: K, timeFrom: number, timeTo: number): AsyncIterableIterator<WindowStoreEntry<V>>;
  function fetch(
    key: K,
    from: number,
    to?: number,
  ): V | undefined | AsyncIterableIterator<WindowStoreEntry<V>> {
    if (to !== undefined) return each((s) => s.fetch(key, from, to));
    for (const view of views()) {
      const found = view.fetch(key, from);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  return {
    name,
    fetch,
    backwardFetch: (key, from, to) => each((s) => s.backwardFetch(key, from, to)),
    fetchAll: (from, to) => each<{ key: Windowed<K>; value: V }>((s) => s.fetchAll(from, to)),
    all: () => each<{ key: Windowed<K>; value: V }>((s) => s.all()),
  };
}

import type { SessionEntry, SessionStore } from '@kstreams/state-store';

/**
 * Read access to a session store (Kafka Streams' ReadOnlySessionStore; times in ms): what
 * interactive queries and the test driver give. Sessions come by end, then start.
 */
export interface ReadOnlySessionStore<K, V> {
  readonly name: string;
  /** Every session of `key`. */
  fetch(key: K): AsyncIterableIterator<SessionEntry<K, V>>;
  backwardFetch(key: K): AsyncIterableIterator<SessionEntry<K, V>>;
  /** The sessions of `key` that end at or after `earliestSessionEndTime` and start at or before `latestSessionStartTime`. */
  findSessions(
    key: K,
    earliestSessionEndTime: number,
    latestSessionStartTime: number,
  ): AsyncIterableIterator<SessionEntry<K, V>>;
  backwardFindSessions(
    key: K,
    earliestSessionEndTime: number,
    latestSessionStartTime: number,
  ): AsyncIterableIterator<SessionEntry<K, V>>;
  /** The aggregate of the session of `key` that is exactly [start, end]. */
  fetchSession(key: K, sessionStartTime: number, sessionEndTime: number): V | undefined;
}

/**
 * The read-only face of session stores that `stores()` gives, one per task holding the store (one
 * in the test driver; every local task in interactive queries, each holding its keys).
 */
export function readOnlySessionStore<K, V>(
  name: string,
  stores: () => SessionStore<K, V> | readonly SessionStore<K, V>[],
): ReadOnlySessionStore<K, V> {
  const all = (): readonly SessionStore<K, V>[] => {
    const s = stores();
    return Array.isArray(s) ? s : [s as SessionStore<K, V>];
  };
  async function* each(pick: (s: SessionStore<K, V>) => AsyncIterableIterator<SessionEntry<K, V>>) {
    for (const store of all()) yield* pick(store);
  }
  return {
    name,
    fetch: (key) => each((s) => s.fetch(key)),
    backwardFetch: (key) => each((s) => s.backwardFetch(key)),
    findSessions: (key, earliestEnd, latestStart) =>
      each((s) => s.findSessions(key, earliestEnd, latestStart)),
    backwardFindSessions: (key, earliestEnd, latestStart) =>
      each((s) => s.backwardFindSessions(key, earliestEnd, latestStart)),
    fetchSession(key, start, end) {
      for (const store of all()) {
        const found = store.fetchSession(key, start, end);
        if (found !== undefined) return found;
      }
      return undefined;
    },
  };
}

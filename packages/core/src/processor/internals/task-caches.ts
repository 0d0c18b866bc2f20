import { StreamsError } from '../../errors.ts';
import type { DirtyEntry, NamedCache, ThreadCache } from '../../state/internals/thread-cache.ts';

/** A flush that keeps filling caches upstream is a cycle; no DSL topology has one. */
const MAX_FLUSH_ROUNDS = 100;

/**
 * The record caches of one task's stores, within the instance's ThreadCache. Kafka Streams
 * flushes them when the task commits (prepareCommit) and drops them when it rolls back.
 */
export class TaskCaches {
  private readonly caches: NamedCache<unknown>[] = [];

  constructor(
    private readonly threadCache: ThreadCache | undefined,
    private readonly taskId: string,
    private readonly cachingEnabled: (storeName: string) => boolean,
  ) {}

  /** Undefined when the store has no cache, or the instance none (`statestoreCacheMaxBytes: 0`). */
  create<T>(storeName: string, listener: (entries: DirtyEntry<T>[]) => void): NamedCache<T> | undefined {
    if (this.threadCache === undefined || !this.threadCache.enabled) return undefined;
    if (!this.cachingEnabled(storeName)) return undefined;
    const cache = this.threadCache.namedCache<T>(`${this.taskId}-${storeName}`, listener);
    this.caches.push(cache as NamedCache<unknown>);
    return cache;
  }

  private get dirty(): boolean {
    return this.caches.some((cache) => cache.dirty);
  }

  /**
   * Forwards every dirty entry, upstream caches first (processors initialize in topological
   * order); a flush forwards to operators that may fill a cache further down, so it goes on until
   * every cache is clean. `drain` waits for asynchronous processors the flush reached.
   */
  async flush(drain: () => Promise<void>): Promise<void> {
    for (let round = 0; this.dirty; round++) {
      if (round === MAX_FLUSH_ROUNDS) {
        throw new StreamsError(
          `Task ${this.taskId}: flushing the record caches did not end after ${MAX_FLUSH_ROUNDS} rounds (a cycle between cached stores?)`,
        );
      }
      for (const cache of this.caches) cache.flush();
      await drain();
    }
  }

  clear(): void {
    for (const cache of this.caches) cache.clear();
  }
}

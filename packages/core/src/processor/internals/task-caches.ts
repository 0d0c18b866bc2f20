import { StreamsError } from '../../errors.ts';
import type { NamedCache, RecordCache, ThreadCache } from '../../state/internals/thread-cache.ts';
import type { Topology } from '../topology.ts';
import type { PendingWork } from './pending-work.ts';
import type { InputRecord } from './records.ts';

/** A flush that keeps filling caches upstream is a cycle; no DSL topology has one. */
const MAX_FLUSH_ROUNDS = 100;

/** An update with the input record being processed when it was made (Kafka Streams' record context). */
interface InContext<T> {
  readonly value: T;
  readonly context: InputRecord | undefined;
}

/** The task's current input record (Kafka Streams' record context), which a flush sets per entry. */
export interface RecordContextSlot {
  get(): InputRecord | undefined;
  set(record: InputRecord | undefined): void;
}

interface TaskCache {
  readonly cache: NamedCache<InContext<unknown>>;
  /** The last operator's to ask for the store's cache (Kafka Streams' setFlushListener). */
  forward: (first: unknown, latest: unknown) => void;
  readonly recordCache: RecordCache<unknown>;
}

/**
 * The record caches of one task's stores, within the instance's ThreadCache. Kafka Streams
 * flushes them when the task commits (prepareCommit) and drops them when it rolls back. Each
 * entry keeps the record context of its latest update, and is forwarded in that context, so that
 * downstream operators see the metadata (topic, partition, offset) of the record that made it.
 */
export class TaskCaches {
  private readonly caches: TaskCache[] = [];
  private readonly byStore = new Map<string, TaskCache>();
  private contextSource?: InputRecord;
  private cachedContext?: InputRecord;

  constructor(
    private readonly threadCache: ThreadCache | undefined,
    private readonly taskId: string,
    private readonly topology: Topology,
    /** The task's asynchronous work: a flushed entry's context holds until what it started is done. */
    private readonly work: PendingWork,
    private readonly context: RecordContextSlot,
  ) {}

  /**
   * Undefined when the store has no cache, or the instance none (`statestoreCacheMaxBytes: 0`).
   * `forward` gets each dirty key's first and latest update since the last flush.
   */
  create<T>(storeName: string, forward: (first: T, latest: T) => void): RecordCache<T> | undefined {
    if (this.threadCache === undefined || !this.threadCache.enabled) return undefined;
    if (!this.topology.internalBuilder.cachingEnabled(storeName)) return undefined;
    // One cache per store, as Kafka Streams' caching store: the aggregate processors of a cogroup
    // share a store, and a key's entry must hold its latest update whichever processor made it.
    const shared = this.byStore.get(storeName);
    if (shared !== undefined) {
      shared.forward = forward as TaskCache['forward'];
      return shared.recordCache as RecordCache<T>;
    }
    const { context } = this;
    // Evicted while a record is processed: forwarded in that record's context (synchronously).
    const cache = this.threadCache.namedCache<InContext<unknown>>((entries) => {
      for (const { first, latest } of entries) entry.forward(first.value, latest.value);
    });
    const entry: TaskCache = {
      cache,
      forward: forward as TaskCache['forward'],
      recordCache: {
        put: (id, size, value) => cache.put(id, size, { value, context: this.contextOf(context.get()) }),
      },
    };
    this.caches.push(entry);
    this.byStore.set(storeName, entry);
    return entry.recordCache as RecordCache<T>;
  }

  /**
   * The record context an entry keeps: the input record without its key and value bytes (as Kafka
   * Streams' cached record context, whose raw source record is gone after a flush). Those bytes are
   * views of a whole fetch response, which an entry would keep in memory until the next commit
   * (30 s under at_least_once): in the word-count benchmark, tens of megabytes of responses. One per
   * input record, however many updates it makes.
   */
  private contextOf(record: InputRecord | undefined): InputRecord | undefined {
    if (record === undefined || (record.key === null && record.value === null)) return record;
    if (record !== this.contextSource) {
      this.contextSource = record;
      this.cachedContext = { ...record, key: null, value: null };
    }
    return this.cachedContext;
  }

  private get dirty(): boolean {
    return this.caches.some(({ cache }) => cache.dirty);
  }

  /**
   * Forwards every dirty entry, each in its latest update's record context, upstream caches first
   * (processors initialize in topological order); a flush forwards to operators that may fill a
   * cache further down, so it goes on until every cache is clean.
   */
  async flush(): Promise<void> {
    for (let round = 0; this.dirty; round++) {
      if (round === MAX_FLUSH_ROUNDS) {
        throw new StreamsError(
          `Task ${this.taskId}: flushing the record caches did not end after ${MAX_FLUSH_ROUNDS} rounds (a cycle between cached stores?)`,
        );
      }
      for (const entry of this.caches) {
        for (const { first, latest } of entry.cache.take()) {
          const saved = this.context.get();
          this.context.set(latest.context);
          try {
            entry.forward(first.value, latest.value);
            if (this.work.busy) await this.work.drain();
          } finally {
            this.context.set(saved);
          }
        }
      }
    }
  }

  clear(): void {
    for (const { cache } of this.caches) cache.clear();
  }
}

import { StreamsError } from '../../errors.ts';

/**
 * What an entry costs beyond its key and value bytes, so that the bound is one on memory: the
 * entry, its Map slot and key string, and the record it forwards. Measured on Node 20: 234 bytes
 * of heap per entry with 27 bytes of key and value. Kafka Streams counts only a few dozen bytes
 * of record context, so the same setting holds fewer entries here than in Java.
 */
export const CACHE_ENTRY_OVERHEAD_BYTES = 200;

/** Kafka Streams' default `statestore.cache.max.bytes`: 10 MiB per instance. */
export const DEFAULT_CACHE_MAX_BYTES = 10 * 1024 * 1024;

/** What an operator puts into its store's cache: an update, by the store key's bytes. */
export interface RecordCache<T> {
  /** `id`: the store key's bytes as a string; `size`: the key and value bytes the store holds. */
  put(id: string, size: number, value: T): void;
}

/** A dirty key's first update since its last flush (which holds the old value) and its latest. */
export interface DirtyEntry<T> {
  readonly first: T;
  latest: T;
  size: number;
}

/**
 * Kafka Streams' ThreadCache (`statestore.cache.max.bytes`): one bound in bytes for the record
 * caches of all stores of all tasks of the instance. A store's cache is a NamedCache; when a put
 * takes the total past the bound, the cache being written is flushed, as Kafka Streams evicts from
 * the cache it is putting into.
 */
export class ThreadCache {
  private total = 0;

  constructor(readonly maxBytes: number) {
    if (!(maxBytes >= 0) || !Number.isFinite(maxBytes)) {
      throw new StreamsError(`statestoreCacheMaxBytes must be a number of bytes >= 0, got ${maxBytes}`);
    }
  }

  /** Off (`statestoreCacheMaxBytes: 0`): every update is forwarded and logged, as without a cache. */
  get enabled(): boolean {
    return this.maxBytes > 0;
  }

  get sizeBytes(): number {
    return this.total;
  }

  /** A cache for one store of one task; `listener` gets its dirty entries, oldest update first. */
  namedCache<T>(name: string, listener: (entries: DirtyEntry<T>[]) => void): NamedCache<T> {
    return new NamedCache<T>(name, this, listener);
  }

  /** @internal NamedCache's share of the bound. */
  add(delta: number): void {
    this.total += delta;
  }
}

/**
 * The dirty entries of one store in one task, in the order of their last update (Kafka Streams'
 * NamedCache keeps its dirty keys so): a key updated again moves to the end. The values live in
 * the store's transactional buffer already; the cache keeps what is to be forwarded, so that
 * repeated updates of a key between two flushes become one record downstream.
 */
export class NamedCache<T> implements RecordCache<T> {
  private entries = new Map<string, DirtyEntry<T>>();
  private bytes = 0;

  constructor(
    readonly name: string,
    private readonly owner: ThreadCache,
    private readonly listener: (entries: DirtyEntry<T>[]) => void,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  get dirty(): boolean {
    return this.entries.size > 0;
  }

  /** `id`: the store key's bytes as a string; `size`: the key and value bytes the store holds. */
  put(id: string, size: number, value: T): void {
    const cost = size + CACHE_ENTRY_OVERHEAD_BYTES;
    const entry = this.entries.get(id);
    if (entry === undefined) {
      this.entries.set(id, { first: value, latest: value, size: cost });
      this.grow(cost);
    } else {
      this.entries.delete(id);
      entry.latest = value;
      this.grow(cost - entry.size);
      entry.size = cost;
      this.entries.set(id, entry);
    }
    if (this.owner.sizeBytes > this.owner.maxBytes) this.flush();
  }

  /** Hands every dirty entry to the listener and forgets them (they are clean now). */
  flush(): void {
    if (this.entries.size > 0) this.listener(this.take());
  }

  /** The dirty entries, oldest update first, for a flush that forwards them itself; they are clean now. */
  take(): DirtyEntry<T>[] {
    const taken = [...this.entries.values()];
    this.clear();
    return taken;
  }

  /** Drops the dirty entries without forwarding them (a rollback, or the task closes). */
  clear(): void {
    this.entries = new Map();
    this.grow(-this.bytes);
  }

  private grow(delta: number): void {
    this.bytes += delta;
    this.owner.add(delta);
  }
}

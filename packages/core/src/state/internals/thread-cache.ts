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
  namedCache<T>(listener: (entries: DirtyEntry<T>[]) => void): NamedCache<T> {
    return new NamedCache<T>(this, listener);
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
/** An entry with its place in the update order (a list, so that moving it costs no Map writes). */
interface Node<T> extends DirtyEntry<T> {
  prev: Node<T> | undefined;
  next: Node<T> | undefined;
}

export class NamedCache<T> implements RecordCache<T> {
  private entries = new Map<string, Node<T>>();
  private head: Node<T> | undefined;
  private tail: Node<T> | undefined;
  private bytes = 0;

  constructor(
    private readonly owner: ThreadCache,
    private readonly listener: (entries: DirtyEntry<T>[]) => void,
  ) {}

  get dirty(): boolean {
    return this.entries.size > 0;
  }

  /** `id`: the store key's bytes as a string; `size`: the key and value bytes the store holds. */
  put(id: string, size: number, value: T): void {
    const cost = size + CACHE_ENTRY_OVERHEAD_BYTES;
    const node = this.entries.get(id);
    if (node === undefined) {
      const added: Node<T> = { first: value, latest: value, size: cost, prev: this.tail, next: undefined };
      this.entries.set(id, added);
      this.append(added);
      this.grow(cost);
    } else {
      node.latest = value;
      this.grow(cost - node.size);
      node.size = cost;
      if (node !== this.tail) {
        this.unlink(node);
        node.prev = this.tail;
        this.append(node);
      }
    }
    if (this.owner.sizeBytes > this.owner.maxBytes) this.flush();
  }

  /** Hands every dirty entry to the listener and forgets them (they are clean now). */
  flush(): void {
    if (this.entries.size > 0) this.listener(this.take());
  }

  /** The dirty entries, oldest update first, for a flush that forwards them itself; they are clean now. */
  take(): DirtyEntry<T>[] {
    const taken: DirtyEntry<T>[] = [];
    for (let node = this.head; node !== undefined; node = node.next) taken.push(node);
    this.clear();
    return taken;
  }

  /** Drops the dirty entries without forwarding them (a rollback, or the task closes). */
  clear(): void {
    this.entries = new Map();
    this.head = undefined;
    this.tail = undefined;
    this.grow(-this.bytes);
  }

  /** `node.prev` is already the current tail. */
  private append(node: Node<T>): void {
    node.next = undefined;
    if (this.tail === undefined) this.head = node;
    else this.tail.next = node;
    this.tail = node;
  }

  private unlink(node: Node<T>): void {
    if (node.prev === undefined) this.head = node.next;
    else node.prev.next = node.next;
    if (node.next === undefined) this.tail = node.prev;
    else node.next.prev = node.prev;
  }

  private grow(delta: number): void {
    this.bytes += delta;
    this.owner.add(delta);
  }
}

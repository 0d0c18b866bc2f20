import { byteOrderKey, compareStrings, inRange } from '../byte-order.ts';
import { InvalidStoreArgumentError } from '../errors.ts';
import { requireBound, requireKey, requireValue } from '../store/validate.ts';
import type { ChangelogRecord, KeyValue, KeyValueBytesStore, LastWriteTracking } from '../types.ts';

export interface TransactionalBufferOptions {
  /**
   * Once the buffered key and value bytes grow past this, `onCommitRequested` is called so the
   * owner commits early and memory stays bounded whatever the commit interval. Default 64 MiB
   * (KIP-892's default for the same bound).
   */
  maxUncommittedBytes?: number;
  /**
   * A bound shared with other buffers (Kafka Streams' `statestore.uncommitted.max.bytes` holds for
   * the whole instance, KIP-892): when given, it replaces `maxUncommittedBytes`, and a commit is
   * asked for once the buffers together pass it.
   */
  budget?: UncommittedBytesBudget;
  onCommitRequested?: () => void;
  /** Called on every put and delete (the task's store position follows its writes); null: a delete. */
  onWrite?: (key: Buffer, value: Buffer | null) => void;
}

/**
 * What a buffered entry costs beyond its key and value bytes: the Map entry and the headers of the
 * two strings that hold the key and the value. Measured on Node 20 (100k entries of a windowed
 * count's 21-byte keys and 16-byte values, heap and external memory): 110 bytes per entry in all
 * (394 when the buffer held the Buffers it was given). The up to COMPACT_AFTER values still held
 * as Buffers cost ~300 bytes more each: a constant of ~2.5 MB per buffer, left out.
 */
export const ENTRY_OVERHEAD_BYTES = 80;

/**
 * How many values the buffer holds as the Buffers it was given before it copies them into
 * strings. A small buffer (a word count's few thousand keys between commits) never pays for the
 * copies, and a key written again soon replaces its Buffer before any copy.
 */
const COMPACT_AFTER = 8192;

/** Uncommitted bytes of one or more buffers against one bound. */
export class UncommittedBytesBudget {
  private total = 0;

  constructor(readonly maxBytes: number) {
    if (!(maxBytes > 0)) {
      throw new InvalidStoreArgumentError(
        `maxUncommittedBytes must be a positive number of bytes, got ${maxBytes}.`,
      );
    }
  }

  get bytes(): number {
    return this.total;
  }

  get exceeded(): boolean {
    return this.total > this.maxBytes;
  }

  add(delta: number): void {
    this.total += delta;
  }
}

const DEFAULT_MAX_UNCOMMITTED_BYTES = 64 * 1024 * 1024;

/**
 * Keeps a task's uncommitted writes in memory over any byte store (Kafka's KIP-892 idea): reads
 * see the buffer first, then the store; `commit()` applies the buffer in one atomic batch after
 * the Kafka transaction committed, `rollback()` drops it. So after a crash the store holds only
 * committed writes. The buffer keeps value Buffers it is given for a while, and remembers the last
 * key it looked up: callers must not mutate a key or value Buffer after passing it (to a read
 * either).
 *
 * Keys are held as latin1 strings (one byte per character, the bytes' own order), and so are
 * values once more than COMPACT_AFTER of them are buffered: a Buffer is about 100 bytes of heap
 * besides its bytes, and a small one is a slice that keeps its whole 8 KiB allocation pool alive.
 * A large buffer's writes are the bulk of what a stream processor's heap holds, and they all
 * outlive the young generation.
 */
export class TransactionalBuffer implements LastWriteTracking {
  readonly store: KeyValueBytesStore;
  private readonly budget: UncommittedBytesBudget;
  private readonly onCommitRequested: (() => void) | undefined;
  private readonly onWrite: ((key: Buffer, value: Buffer | null) => void) | undefined;
  /** Values by the key's byteOrderKey: a Buffer, its bytes as a latin1 string, or null (a delete). */
  private pending = new Map<string, BufferedValue>();
  /** Keys whose value may still be a Buffer, for the next compaction. */
  private fresh: string[] = [];
  /** The last key looked up and its sort key: a get and then a put of one key make it once. */
  private lastKey: Buffer | undefined;
  private lastSortKey = '';
  /** LastWriteTracking, for the typed stores over this buffer. */
  lastWrittenId: string | undefined;
  lastWrittenBytes = 0;
  private bytes = 0;
  private commitRequested = false;
  private commitInFlight: Promise<void> | undefined;
  /** Bumped by every write and rollback, so commit() can tell whether the buffer moved under it. */
  private generation = 0;
  private rollbacks = 0;
  private commitsStarted = 0;

  constructor(store: KeyValueBytesStore, options: TransactionalBufferOptions = {}) {
    const max = options.maxUncommittedBytes ?? DEFAULT_MAX_UNCOMMITTED_BYTES;
    if (options.budget === undefined && !(max > 0)) {
      throw new InvalidStoreArgumentError(
        `TransactionalBuffer for store "${store.name}": maxUncommittedBytes must be a positive number of bytes, got ${max}.`,
      );
    }
    this.store = store;
    this.budget = options.budget ?? new UncommittedBytesBudget(max);
    this.onCommitRequested = options.onCommitRequested;
    this.onWrite = options.onWrite;
  }

  /**
   * How many times the buffer was rolled back: a view that keeps an index of the buffer's contents
   * in memory (the suppression buffer's time order) rebuilds it when this moves.
   */
  get rollbackCount(): number {
    return this.rollbacks;
  }

  /** Key and value bytes of the buffered writes (a delete counts its key), plus each entry's overhead. */
  get uncommittedBytes(): number {
    return this.bytes;
  }

  get(key: Buffer): Buffer | undefined {
    requireKey(this.store.name, key);
    const value = this.pending.get(this.sortKeyOf(key));
    if (value !== undefined) return value === null ? undefined : bytesOf(value);
    return this.store.get(key);
  }

  put(key: Buffer, value: Buffer): void {
    requireKey(this.store.name, key);
    requireValue(this.store.name, value);
    this.record(key, value);
  }

  putIfAbsent(key: Buffer, value: Buffer): Buffer | undefined {
    const existing = this.get(key);
    if (existing !== undefined) return existing;
    this.put(key, value);
    return undefined;
  }

  /** Buffers a tombstone even for an absent key, so the changelog always carries the delete. */
  delete(key: Buffer): Buffer | undefined {
    const old = this.get(key);
    this.record(key, null);
    return old;
  }

  range(from?: Buffer, to?: Buffer): AsyncIterableIterator<KeyValue> {
    requireBound(this.store.name, from, 'from');
    requireBound(this.store.name, to, 'to');
    const fromKey = from === undefined ? undefined : byteOrderKey(from);
    const toKey = to === undefined ? undefined : byteOrderKey(to);
    const buffered: [sortKey: string, value: BufferedValue][] = [];
    for (const entry of this.pending) {
      if (inRange(entry[0], fromKey, toKey)) buffered.push(entry);
    }
    buffered.sort((a, b) => compareStrings(a[0], b[0]));
    return mergeRange(buffered, this.store.range(from, to));
  }

  all(): AsyncIterableIterator<KeyValue> {
    return this.range(undefined, undefined);
  }

  /**
   * The store's count adjusted by the buffer: a buffered put of a key the store lacks adds one, a
   * buffered delete of a key the store has removes one.
   */
  async approximateNumEntries(): Promise<number> {
    for (;;) {
      while (this.commitInFlight !== undefined) await this.commitInFlight.catch(() => {});
      const commits = this.commitsStarted;
      let delta = 0;
      for (const [sortKey, value] of this.pending) {
        const inStore = this.store.get(Buffer.from(sortKey, 'latin1')) !== undefined;
        if (value !== null && !inStore) delta++;
        else if (value === null && inStore) delta--;
      }
      const stored = await this.store.approximateNumEntries();
      // A commit during the count moved buffered writes into the store: they were counted twice
      // (seen with a global store, whose thread commits while a query counts). Count again.
      if (this.commitsStarted === commits) return Math.max(0, stored + delta);
    }
  }

  hasPendingChanges(): boolean {
    return this.pending.size > 0;
  }

  pendingChanges(): ChangelogRecord[] {
    return [...this.eachPendingChange()];
  }

  /**
   * The pending changes one at a time, in the order of their last write: a commit's changelog
   * records are encoded as they are read, not held in an array first. The buffer must not be
   * written meanwhile.
   */
  *eachPendingChange(): IterableIterator<ChangelogRecord> {
    for (const [sortKey, value] of this.pending) yield changeOf(sortKey, value);
  }

  /**
   * Applies the buffer to the store in one `writeBatch`, then clears what was applied. Writes made
   * while the batch is in flight stay buffered for the next commit; concurrent commits queue.
   */
  async commit(): Promise<void> {
    while (this.commitInFlight !== undefined) await this.commitInFlight.catch(() => {});
    if (this.pending.size === 0) return;
    const committing = [...this.pending];
    const generation = this.generation;
    this.commitsStarted++;
    const done = this.store.writeBatch(committing.map(([sortKey, value]) => changeOf(sortKey, value)));
    this.commitInFlight = done;
    try {
      await done;
    } finally {
      this.commitInFlight = undefined;
    }
    if (this.generation === generation) {
      this.clear();
    } else {
      // Writes arrived during the batch: keep the ones that replaced what was committed. (A
      // value compacted into a string meanwhile stays too, and is written again: same bytes.)
      for (const [sortKey, value] of committing) {
        if (this.pending.get(sortKey) === value) {
          this.pending.delete(sortKey);
          this.adjust(-sizeOf(sortKey, value));
        }
      }
    }
    this.rearmCommitRequest();
  }

  rollback(): void {
    this.generation++;
    this.rollbacks++;
    this.clear();
    this.rearmCommitRequest();
  }

  private sortKeyOf(key: Buffer): string {
    if (key === this.lastKey) return this.lastSortKey;
    const sortKey = byteOrderKey(key);
    this.lastKey = key;
    this.lastSortKey = sortKey;
    return sortKey;
  }

  private record(key: Buffer, value: Buffer | null): void {
    this.generation++;
    this.onWrite?.(key, value);
    const sortKey = this.sortKeyOf(key);
    this.lastWrittenId = sortKey;
    this.lastWrittenBytes = key.length + (value?.length ?? 0);
    const previous = this.pending.get(sortKey);
    // Delete first so the Map's order follows the latest write (the changelog order of the batch).
    if (previous !== undefined) {
      this.pending.delete(sortKey);
      this.adjust(-sizeOf(sortKey, previous));
    }
    this.pending.set(sortKey, value);
    this.adjust(sizeOf(sortKey, value));
    // A key whose Buffer was replaced by a Buffer is listed already.
    if (value !== null && !(previous instanceof Buffer)) {
      if (this.fresh.push(sortKey) > COMPACT_AFTER) this.compact();
    }
    if (!this.commitRequested && this.budget.exceeded) {
      this.commitRequested = true;
      this.onCommitRequested?.();
    }
  }

  /** Copies the values still held as Buffers into strings (see COMPACT_AFTER). */
  private compact(): void {
    for (const sortKey of this.fresh) {
      const value = this.pending.get(sortKey);
      // set() of a present key keeps its place in the write order.
      if (value instanceof Buffer) this.pending.set(sortKey, value.toString('latin1'));
    }
    this.fresh = [];
  }

  private clear(): void {
    this.pending = new Map();
    this.fresh = [];
    this.adjust(-this.bytes);
  }

  // Ask again only after the buffer has dropped back under the bound: once per crossing.
  private rearmCommitRequest(): void {
    if (!this.budget.exceeded) this.commitRequested = false;
  }

  private adjust(delta: number): void {
    this.bytes += delta;
    this.budget.add(delta);
  }
}

/** A buffered value: the Buffer given, its bytes as a latin1 string (compacted), or null (a delete). */
type BufferedValue = Buffer | string | null;

function sizeOf(sortKey: string, value: BufferedValue): number {
  return ENTRY_OVERHEAD_BYTES + sortKey.length + (value === null ? 0 : value.length);
}

function bytesOf(value: Buffer | string): Buffer {
  return typeof value === 'string' ? Buffer.from(value, 'latin1') : value;
}

function changeOf(sortKey: string, value: BufferedValue): ChangelogRecord {
  return { key: Buffer.from(sortKey, 'latin1'), value: value === null ? null : bytesOf(value) };
}

async function* mergeRange(
  buffered: readonly [sortKey: string, value: BufferedValue][],
  stored: AsyncIterableIterator<KeyValue>,
): AsyncIterableIterator<KeyValue> {
  let b = 0;
  try {
    for await (const entry of stored) {
      // Emit buffered entries that sort before this stored key; one with the same key replaces it.
      let replaced = false;
      // Made only while buffered entries are left: most of a long scan's stored keys need none.
      let storedKey: string | undefined;
      while (b < buffered.length) {
        const [sortKey, value] = buffered[b]!;
        storedKey ??= byteOrderKey(entry.key);
        const order = compareStrings(sortKey, storedKey);
        if (order > 0) break;
        b++;
        if (order === 0) replaced = true;
        if (value !== null) yield changeOf(sortKey, value) as KeyValue;
      }
      if (!replaced) yield entry;
    }
    for (; b < buffered.length; b++) {
      const [sortKey, value] = buffered[b]!;
      if (value !== null) yield changeOf(sortKey, value) as KeyValue;
    }
  } finally {
    await stored.return?.();
  }
}

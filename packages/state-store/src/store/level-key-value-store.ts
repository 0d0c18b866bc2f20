import { mkdir } from 'node:fs/promises';
import { ClassicLevel } from 'classic-level';
import {
  InvalidStoreArgumentError,
  StoreDiskFullError,
  StoreLockedError,
  StoreNotOpenError,
} from '../errors.ts';
import type { ChangelogRecord, KeyValue, KeyValueBytesStore } from '../types.ts';
import { requireBound, requireChanges, requireKey, requireValue } from './validate.ts';
import { checkValueFormat } from './value-format-marker.ts';

export interface LevelKeyValueStoreOptions {
  name: string;
  /** The database directory: `<stateDir>/<applicationId>/<taskId>/<storeName>/`. Created if missing. */
  location: string;
  /** LevelDB block cache in bytes (classic-level default: 8 MiB). */
  cacheSize?: number;
  /** LevelDB memtable size in bytes (classic-level default: 4 MiB). */
  writeBufferSize?: number;
  /**
   * fsync every write (default true). The task checkpoint is written after a commit's batch and
   * fsynced; if the batch were not durable too, a power loss could leave a checkpoint that claims
   * changes the store lost, and restore would skip them. With `false`, call `flush()` before
   * writing a checkpoint.
   */
  syncWrites?: boolean;
  /**
   * The layout of the values when not the default one ('headers': Kafka Streams' ValueTimestampHeaders),
   * recorded beside the database; opening entries written in another layout is a StoreFormatError.
   */
  valueFormat?: string;
}

type Db = ClassicLevel<Buffer, Buffer>;

/** Entries fetched per native iterator call: fewer round trips than one `next()` per entry. */
const ITERATOR_BATCH = 1000;

/** A persistent byte store: one LevelDB database (through classic-level) per store per task. */
export class LevelKeyValueStore implements KeyValueBytesStore {
  readonly name: string;
  readonly persistent = true;
  readonly location: string;
  private readonly options: LevelKeyValueStoreOptions;
  private readonly syncWrites: boolean;
  private db: Db | undefined;
  // The newest write not yet fsynced, replayed with sync by flush(): re-applying the latest write
  // of a key changes nothing, and a synced LevelDB write makes the whole log before it durable.
  private unsyncedWrite: ChangelogRecord | undefined;

  constructor(options: LevelKeyValueStoreOptions) {
    validateOptions(options);
    this.options = { ...options };
    this.name = options.name;
    this.location = options.location;
    this.syncWrites = options.syncWrites ?? true;
  }

  async open(): Promise<void> {
    if (this.db !== undefined) return;
    await mkdir(this.location, { recursive: true });
    const db: Db = new ClassicLevel<Buffer, Buffer>(this.location, {
      keyEncoding: 'buffer',
      valueEncoding: 'buffer',
      createIfMissing: true,
      ...(this.options.cacheSize !== undefined ? { cacheSize: this.options.cacheSize } : {}),
      ...(this.options.writeBufferSize !== undefined
        ? { writeBufferSize: this.options.writeBufferSize }
        : {}),
    });
    try {
      await db.open();
    } catch (err) {
      if (isLockedError(err)) throw new StoreLockedError(this.location, { cause: err });
      throw err;
    }
    try {
      await checkValueFormat(this.name, this.location, this.options.valueFormat, async () => {
        const first = await db.keys({ limit: 1 }).all();
        return first.length === 0;
      });
    } catch (err) {
      await db.close();
      throw err;
    }
    this.db = db;
  }

  get(key: Buffer): Buffer | undefined {
    const db = this.requireOpen();
    requireKey(this.name, key);
    return db.getSync(key);
  }

  async put(key: Buffer, value: Buffer): Promise<void> {
    const db = this.requireOpen();
    requireKey(this.name, key);
    requireValue(this.name, value);
    await db.put(key, value, { sync: this.syncWrites }).catch(this.diskFull);
    this.noteWrite({ key, value });
  }

  async putIfAbsent(key: Buffer, value: Buffer): Promise<Buffer | undefined> {
    const existing = this.get(key);
    if (existing !== undefined) return existing;
    await this.put(key, value);
    return undefined;
  }

  async delete(key: Buffer): Promise<void> {
    const db = this.requireOpen();
    requireKey(this.name, key);
    await db.del(key, { sync: this.syncWrites }).catch(this.diskFull);
    this.noteWrite({ key, value: null });
  }

  async writeBatch(changes: readonly ChangelogRecord[]): Promise<void> {
    const db = this.requireOpen();
    requireChanges(this.name, changes);
    if (changes.length === 0) return;
    // A chained batch, not db.batch(array): both are one atomic LevelDB WriteBatch, but the
    // chained form hands each operation to the native side directly and measured ~6x faster.
    const batch = db.batch();
    try {
      for (const { key, value } of changes) {
        if (value === null) batch.del(key);
        else batch.put(key, value);
      }
    } catch (err) {
      await batch.close();
      throw err;
    }
    await batch.write({ sync: this.syncWrites }).catch(this.diskFull);
    this.noteWrite(changes[changes.length - 1]!);
  }

  /** Rethrows a write's failure, as a StoreDiskFullError naming the store's directory when the disk is full. */
  private readonly diskFull = (err: unknown): never => {
    throw StoreDiskFullError.wrap(err, this.location);
  };

  range(from: Buffer | undefined, to: Buffer | undefined): AsyncIterableIterator<KeyValue> {
    const db = this.requireOpen();
    requireBound(this.name, from, 'from');
    requireBound(this.name, to, 'to');
    return iterateRange(db, from, to);
  }

  all(): AsyncIterableIterator<KeyValue> {
    return this.range(undefined, undefined);
  }

  /** LevelDB keeps no key count, so this counts keys: exact, but O(entries). */
  async approximateNumEntries(): Promise<number> {
    const db = this.requireOpen();
    const keys = db.keys();
    let count = 0;
    try {
      for (;;) {
        const batch = await keys.nextv(ITERATOR_BATCH * 10);
        if (batch.length === 0) return count;
        count += batch.length;
      }
    } finally {
      await keys.close();
    }
  }

  async flush(): Promise<void> {
    const db = this.requireOpen();
    const write = this.unsyncedWrite;
    if (write === undefined) return;
    if (write.value === null) await db.del(write.key, { sync: true });
    else await db.put(write.key, write.value, { sync: true });
    if (this.unsyncedWrite === write) this.unsyncedWrite = undefined;
  }

  async close(): Promise<void> {
    const db = this.db;
    if (db === undefined) return;
    this.db = undefined;
    this.unsyncedWrite = undefined;
    await db.close();
  }

  private noteWrite(write: ChangelogRecord): void {
    // Copy: the caller may reuse its Buffers, and flush() must replay exactly what was written.
    if (!this.syncWrites) {
      this.unsyncedWrite = { key: Buffer.from(write.key), value: write.value && Buffer.from(write.value) };
    }
  }

  private requireOpen(): Db {
    if (this.db === undefined) throw new StoreNotOpenError(this.name);
    return this.db;
  }
}

async function* iterateRange(
  db: Db,
  from: Buffer | undefined,
  to: Buffer | undefined,
): AsyncIterableIterator<KeyValue> {
  const iterator = db.iterator({
    ...(from !== undefined ? { gte: from } : {}),
    ...(to !== undefined ? { lte: to } : {}),
  });
  try {
    for (;;) {
      const entries = await iterator.nextv(ITERATOR_BATCH);
      if (entries.length === 0) return;
      for (const [key, value] of entries) yield { key, value };
    }
  } finally {
    await iterator.close();
  }
}

function isLockedError(err: unknown): boolean {
  const e = err as { code?: unknown; cause?: { code?: unknown } } | null;
  return e?.code === 'LEVEL_LOCKED' || e?.cause?.code === 'LEVEL_LOCKED';
}

function validateOptions(options: LevelKeyValueStoreOptions): void {
  if (typeof options?.name !== 'string' || options.name.length === 0) {
    throw new InvalidStoreArgumentError('LevelKeyValueStore: options.name must be a non-empty string.');
  }
  if (typeof options.location !== 'string' || options.location.length === 0) {
    throw new InvalidStoreArgumentError(
      `LevelKeyValueStore "${options.name}": options.location must be the database directory path, ` +
        'e.g. <stateDir>/<applicationId>/<taskId>/<storeName>.',
    );
  }
  for (const field of ['cacheSize', 'writeBufferSize'] as const) {
    const value = options[field];
    if (value !== undefined && (!Number.isSafeInteger(value) || value <= 0)) {
      throw new InvalidStoreArgumentError(
        `LevelKeyValueStore "${options.name}": options.${field} must be a positive integer number of bytes, got ${value}.`,
      );
    }
  }
}

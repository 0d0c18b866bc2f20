/** A key and its value, as byte stores hold them. */
export interface KeyValue {
  key: Buffer;
  value: Buffer;
}

/** One store change as the changelog carries it: `value === null` is a tombstone (the key was deleted). */
export interface ChangelogRecord {
  key: Buffer;
  value: Buffer | null;
}

export interface TopicPartition {
  topic: string;
  partition: number;
}

/**
 * A store of byte keys and values. Keys sort in unsigned byte order (`Buffer.compare`), so
 * range queries are only meaningful for key serdes whose bytes sort as the keys should.
 */
export interface KeyValueBytesStore {
  readonly name: string;
  /** Whether the contents survive `close()` and a process restart. */
  readonly persistent: boolean;
  open(): Promise<void>;
  /** Synchronous so that processors can read state without awaiting. */
  get(key: Buffer): Buffer | undefined;
  put(key: Buffer, value: Buffer): Promise<void>;
  /** Writes only if the key is absent; returns the existing value, if any. */
  putIfAbsent(key: Buffer, value: Buffer): Promise<Buffer | undefined>;
  delete(key: Buffer): Promise<void>;
  /** Applies every change or none of them. */
  writeBatch(changes: readonly ChangelogRecord[]): Promise<void>;
  /** Entries with `from <= key <= to` in byte order; an undefined bound is open. */
  range(from: Buffer | undefined, to: Buffer | undefined): AsyncIterableIterator<KeyValue>;
  all(): AsyncIterableIterator<KeyValue>;
  approximateNumEntries(): Promise<number>;
  /** Makes every completed write durable. */
  flush(): Promise<void>;
  /** Idempotent. */
  close(): Promise<void>;
}

/**
 * The key and size of a store's last put or delete, as its transactional buffer recorded them: a
 * record cache in front of the store keys its entries by the same id (the key bytes as a latin1
 * string) without serializing the key or converting its bytes again.
 */
export interface LastWriteTracking {
  readonly lastWrittenId: string | undefined;
  readonly lastWrittenBytes: number;
}

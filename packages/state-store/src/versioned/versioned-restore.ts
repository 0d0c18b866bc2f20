import { TransactionalBuffer } from '../buffer/transactional-buffer.ts';
import type { ChangelogRecord, KeyValue, KeyValueBytesStore } from '../types.ts';
import { VersionedBytesStore, type VersionedStoreOptions } from './versioned-bytes-store.ts';
import { decodeRestoreValue } from './versioned-format.ts';

/**
 * What a versioned store's changelog restores into: each restored record (its value carrying the
 * record's timestamp, see encodeRestoreValue) is replayed as a put with that timestamp, as Kafka
 * Streams' versioned store restores, and each batch reaches the byte store as one atomic write.
 * Everything else goes to the byte store as it is.
 */
export class VersionedRestoreTarget implements KeyValueBytesStore {
  readonly name: string;
  readonly persistent: boolean;

  constructor(
    private readonly store: KeyValueBytesStore,
    private readonly options: VersionedStoreOptions,
  ) {
    this.name = store.name;
    this.persistent = store.persistent;
  }

  async writeBatch(changes: readonly ChangelogRecord[]): Promise<void> {
    const buffer = new TransactionalBuffer(this.store, { maxUncommittedBytes: Number.MAX_SAFE_INTEGER });
    const versioned = new VersionedBytesStore(buffer, this.options);
    for (const { key, value } of changes) {
      if (value === null) continue;
      const put = decodeRestoreValue(value);
      versioned.put(key, put.value, put.timestamp);
    }
    await buffer.commit();
  }

  open(): Promise<void> {
    return this.store.open();
  }
  get(key: Buffer): Buffer | undefined {
    return this.store.get(key);
  }
  put(key: Buffer, value: Buffer): Promise<void> {
    return this.store.put(key, value);
  }
  putIfAbsent(key: Buffer, value: Buffer): Promise<Buffer | undefined> {
    return this.store.putIfAbsent(key, value);
  }
  delete(key: Buffer): Promise<void> {
    return this.store.delete(key);
  }
  range(from: Buffer | undefined, to: Buffer | undefined): AsyncIterableIterator<KeyValue> {
    return this.store.range(from, to);
  }
  all(): AsyncIterableIterator<KeyValue> {
    return this.store.all();
  }
  approximateNumEntries(): Promise<number> {
    return this.store.approximateNumEntries();
  }
  flush(): Promise<void> {
    return this.store.flush();
  }
  close(): Promise<void> {
    return this.store.close();
  }
}

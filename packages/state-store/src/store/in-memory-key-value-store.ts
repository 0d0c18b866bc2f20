import { byteOrderKey } from '../byte-order.ts';
import { StoreNotOpenError } from '../errors.ts';
import type { ChangelogRecord, KeyValue, KeyValueBytesStore } from '../types.ts';
import { SortedKeyIndex } from './sorted-key-index.ts';
import { requireBound, requireChanges, requireKey, requireValue } from './validate.ts';

interface Entry {
  key: Buffer;
  value: Buffer;
}

/**
 * A non-persistent byte store with the same contract as `LevelKeyValueStore`. Like Kafka
 * Streams' in-memory store, `close()` drops the contents. Keys and values are copied on write so
 * that a caller reusing its Buffers cannot change stored data (as with LevelDB).
 */
export class InMemoryKeyValueStore implements KeyValueBytesStore {
  readonly name: string;
  readonly persistent = false;
  private readonly entries = new Map<string, Entry>();
  private readonly index = new SortedKeyIndex();
  private isOpen = false;

  constructor(name: string) {
    this.name = name;
  }

  async open(): Promise<void> {
    this.isOpen = true;
  }

  get(key: Buffer): Buffer | undefined {
    this.requireOpen();
    requireKey(this.name, key);
    return this.entries.get(byteOrderKey(key))?.value;
  }

  async put(key: Buffer, value: Buffer): Promise<void> {
    this.requireOpen();
    requireKey(this.name, key);
    requireValue(this.name, value);
    this.set(key, value);
  }

  async putIfAbsent(key: Buffer, value: Buffer): Promise<Buffer | undefined> {
    const existing = this.get(key);
    if (existing !== undefined) return existing;
    requireValue(this.name, value);
    this.set(key, value);
    return undefined;
  }

  async delete(key: Buffer): Promise<void> {
    this.requireOpen();
    requireKey(this.name, key);
    this.remove(key);
  }

  async writeBatch(changes: readonly ChangelogRecord[]): Promise<void> {
    this.requireOpen();
    // Validate everything before the first write so that a bad record leaves the store untouched.
    requireChanges(this.name, changes);
    for (const { key, value } of changes) {
      if (value === null) this.remove(key);
      else this.set(key, value);
    }
  }

  range(from: Buffer | undefined, to: Buffer | undefined): AsyncIterableIterator<KeyValue> {
    this.requireOpen();
    requireBound(this.name, from, 'from');
    requireBound(this.name, to, 'to');
    const keys = this.index.keysInRange(
      (k) => this.entries.has(k),
      from === undefined ? undefined : byteOrderKey(from),
      to === undefined ? undefined : byteOrderKey(to),
    );
    return this.iterate(keys);
  }

  all(): AsyncIterableIterator<KeyValue> {
    return this.range(undefined, undefined);
  }

  async approximateNumEntries(): Promise<number> {
    this.requireOpen();
    return this.entries.size;
  }

  async flush(): Promise<void> {
    this.requireOpen();
  }

  async close(): Promise<void> {
    this.isOpen = false;
    this.entries.clear();
    this.index.clear();
  }

  // The key list is a snapshot; values are read when reached, so entries deleted meanwhile are
  // skipped and updated ones show their new value (Kafka Streams' in-memory iterator does the same).
  private async *iterate(keys: readonly string[]): AsyncIterableIterator<KeyValue> {
    for (const k of keys) {
      const entry = this.entries.get(k);
      if (entry !== undefined) yield { key: entry.key, value: entry.value };
    }
  }

  private set(key: Buffer, value: Buffer): void {
    const k = byteOrderKey(key);
    const existing = this.entries.get(k);
    if (existing === undefined) {
      this.entries.set(k, { key: Buffer.from(key), value: Buffer.from(value) });
      this.index.add(k);
    } else {
      existing.value = Buffer.from(value);
    }
  }

  private remove(key: Buffer): void {
    const k = byteOrderKey(key);
    if (this.entries.delete(k)) this.index.noteRemoved(k);
  }

  private requireOpen(): void {
    if (!this.isOpen) throw new StoreNotOpenError(this.name);
  }
}

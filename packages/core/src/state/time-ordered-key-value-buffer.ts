import type { StoreSerde, TransactionalBuffer } from '@kstreams/state-store';
import { StreamsError } from '../errors.ts';
import {
  type BufferedRecordContext,
  type BufferValue,
  decodeBufferValue,
  encodeBufferValue,
  residentSizeEstimate,
} from './buffer-value.ts';
import type { StateStore } from './state-store.ts';

/** A table update as the buffer takes and gives it (the DSL's Change, without importing the DSL). */
export interface BufferedChange<V> {
  readonly newValue: V | null;
  readonly oldValue: V | null;
}

export interface Eviction<K, V> {
  readonly key: K;
  readonly value: BufferedChange<V>;
  readonly context: BufferedRecordContext;
}

interface IndexEntry {
  readonly hex: string;
  readonly key: Buffer;
  readonly time: number;
  size: number;
}

/** The keys buffered at one time, in key byte order once sorted (hex strings sort as the bytes do). */
interface TimeSlot {
  readonly keys: Map<string, IndexEntry>;
  /** The keys in order, from `next` on (evicting from the front without shifting the array). */
  sorted: IndexEntry[] | undefined;
  next: number;
}

/**
 * Kafka Streams' TimeOrderedKeyValueBuffer, the suppression buffer: the latest update per key,
 * evicted in order of (buffer time, key bytes). A key keeps the buffer time of its first update
 * until it is evicted (so `untilTimeLimit` emits a busy key once per limit, not never).
 *
 * The entries live in the task's transactional buffer, keyed by the key bytes and stored in Kafka
 * Streams' v3 changelog format, so that they commit, roll back, go to the changelog and are
 * restored like any store's. The time order is an index in memory, rebuilt from the store on first
 * use (after the restore) and after every rollback: `load()` must run whenever `needsLoad` says so.
 */
export class TimeOrderedKeyValueBuffer<K, V> implements StateStore {
  private readonly index = new Map<string, IndexEntry>();
  private readonly slots = new Map<number, TimeSlot>();
  /** The distinct buffer times, ascending. */
  private times: number[] = [];
  private memBufferSize = 0;
  private loadedAt: number | undefined;

  constructor(
    readonly name: string,
    private readonly buffer: TransactionalBuffer,
    private readonly keySerde: StoreSerde<K>,
    private readonly valueSerde: StoreSerde<V>,
  ) {}

  get needsLoad(): boolean {
    return this.loadedAt !== this.buffer.rollbackCount;
  }

  /** Rebuilds the time index from what the store holds (committed entries after a rollback). */
  async load(): Promise<void> {
    const rollbacks = this.buffer.rollbackCount;
    this.index.clear();
    this.slots.clear();
    this.times = [];
    this.memBufferSize = 0;
    for await (const { key, value } of this.buffer.all()) {
      const { value: decoded, bufferTime } = decodeBufferValue(value);
      this.addToIndex(key, bufferTime, residentSizeEstimate(key.length, decoded));
    }
    this.loadedAt = rollbacks;
  }

  numRecords(): number {
    return this.index.size;
  }

  /** Kafka Streams' estimate of the buffer's memory (what `maxBytes` bounds). */
  bufferSize(): number {
    return this.memBufferSize;
  }

  /** The earliest buffer time; +Infinity when empty (Kafka Streams' Long.MAX_VALUE). */
  minTimestamp(): number {
    return this.times.length === 0 ? Number.POSITIVE_INFINITY : this.times[0]!;
  }

  put(time: number, key: K, change: BufferedChange<V>, context: BufferedRecordContext): void {
    this.requireLoaded();
    const keyBytes = this.keySerde.serialize(key);
    const hex = keyBytes.toString('hex');
    const newValue = change.newValue === null ? null : this.valueSerde.serialize(change.newValue);
    const oldValue = change.oldValue === null ? null : this.valueSerde.serialize(change.oldValue);
    const existing = this.index.get(hex);
    // The prior value is what downstream last saw: the old value of the first buffered update.
    const priorValue = existing === undefined ? oldValue : this.stored(existing.key).value.priorValue;
    const value: BufferValue = { priorValue, oldValue, newValue, context };
    const size = residentSizeEstimate(keyBytes.length, value);
    const bufferTime = existing?.time ?? time;
    if (existing === undefined) this.addToIndex(keyBytes, bufferTime, size);
    else {
      this.memBufferSize += size - existing.size;
      existing.size = size;
    }
    this.buffer.put(keyBytes, encodeBufferValue(value, bufferTime));
  }

  /**
   * While `predicate` holds, hands the oldest entry to `callback` and removes it (a tombstone in
   * the changelog).
   */
  evictWhile(predicate: () => boolean, callback: (eviction: Eviction<K, V>) => void): void {
    this.requireLoaded();
    while (this.times.length > 0 && predicate()) {
      const time = this.times[0]!;
      const slot = this.slots.get(time)!;
      if (slot.sorted === undefined) {
        slot.sorted = [...slot.keys.values()].sort((a, b) => (a.hex < b.hex ? -1 : a.hex > b.hex ? 1 : 0));
        slot.next = 0;
      }
      const entry = slot.sorted[slot.next++]!;
      const { value } = this.stored(entry.key);
      this.removeFromIndex(entry, slot);
      this.buffer.delete(entry.key);
      callback({
        key: this.keySerde.deserialize(entry.key),
        value: {
          newValue: value.newValue === null ? null : this.valueSerde.deserialize(value.newValue),
          oldValue: value.oldValue === null ? null : this.valueSerde.deserialize(value.oldValue),
        },
        context: value.context,
      });
    }
  }

  private stored(key: Buffer): { value: BufferValue; bufferTime: number } {
    const bytes = this.buffer.get(key);
    if (bytes === undefined)
      throw new StreamsError(`Suppression buffer '${this.name}': its index names a key the store lacks`);
    return decodeBufferValue(bytes);
  }

  private addToIndex(key: Buffer, time: number, size: number): void {
    const entry: IndexEntry = { hex: key.toString('hex'), key, time, size };
    this.index.set(entry.hex, entry);
    this.memBufferSize += size;
    let slot = this.slots.get(time);
    if (slot === undefined) {
      slot = { keys: new Map(), sorted: undefined, next: 0 };
      this.slots.set(time, slot);
      this.insertTime(time);
    }
    slot.keys.set(entry.hex, entry);
    slot.sorted = undefined;
  }

  private removeFromIndex(entry: IndexEntry, slot: TimeSlot): void {
    this.index.delete(entry.hex);
    this.memBufferSize -= entry.size;
    slot.keys.delete(entry.hex);
    if (slot.keys.size === 0) {
      this.slots.delete(entry.time);
      this.times.splice(this.times.indexOf(entry.time), 1);
    }
  }

  // Buffer times mostly grow (window ends, record times), so the common case is an append.
  private insertTime(time: number): void {
    const times = this.times;
    if (times.length === 0 || times[times.length - 1]! < time) {
      times.push(time);
      return;
    }
    let lo = 0;
    let hi = times.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (times[mid]! < time) lo = mid + 1;
      else hi = mid;
    }
    times.splice(lo, 0, time);
  }

  private requireLoaded(): void {
    if (this.needsLoad)
      throw new StreamsError(
        `Suppression buffer '${this.name}' used before load() (after the restore or a rollback)`,
      );
  }
}

import { readLong, type StoreSerde, type TransactionalBuffer, writeLong } from '@kstreams/state-store';
import type { Serde } from '../serdes/serde.ts';
import { type BufferedRecordContext, decodeBufferValue, encodeBufferValue } from './buffer-value.ts';
import type { StateStore } from './state-store.ts';
import { keyValueBytesStoreBuilder, type StoreBuilder } from './store-builder.ts';

/** A stream record taken out of the buffer, with the context it came with. */
export interface BufferedStreamRecord<K, V> {
  readonly key: K;
  readonly value: V;
  readonly context: BufferedRecordContext;
}

interface Entry {
  /** The store key as a latin1 string: sorts as its bytes (time, key, seqnum). */
  readonly sortKey: string;
  readonly storeKey: Buffer;
  readonly time: number;
}

/** Kafka Streams' PrefixedWindowKeySchemas: a time-first key starts with this byte. */
const TIME_FIRST_PREFIX = 0;
const PREFIX = 1;

/** No stream time yet (Kafka Streams' ConsumerRecord.NO_TIMESTAMP). */
const NO_STREAM_TIME = -1;

/**
 * Kafka Streams' RocksDBTimeOrderedKeyValueBuffer, the stream side of a stream-table join with a
 * grace period (KIP-923): each stream record is kept under Kafka Streams' TimeFirstWindowKeySchema
 * key (prefix 0, timestamp, key bytes, seqnum) with its record context (the BufferValue format, buffer time
 * 0), so that records leave in (timestamp, key bytes, arrival) order once the stream time of the
 * buffer (the largest timestamp put) minus the grace period reaches them. A record already older
 * than that is not buffered: the join takes it at once.
 *
 * The entries live in the task's transactional buffer (committed, rolled back, changelogged and
 * restored like any store's); the order is an index in memory, rebuilt from the store on first use
 * and after a rollback (`needsLoad`, `load()`). The buffer's stream time is kept in memory as Kafka
 * Streams keeps it; after a restart or a rollback it is the largest timestamp still buffered.
 */
export class TimeOrderedJoinBuffer<K, V> implements StateStore {
  private entries: Entry[] = [];
  private streamTime = NO_STREAM_TIME;
  private seqnum = 0;
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

  async load(): Promise<void> {
    const rollbacks = this.buffer.rollbackCount;
    const entries: Entry[] = [];
    this.streamTime = NO_STREAM_TIME;
    for await (const { key } of this.buffer.all()) {
      const time = readLong(key, PREFIX);
      entries.push({ sortKey: key.toString('latin1'), storeKey: key, time });
      this.streamTime = Math.max(this.streamTime, time);
      this.seqnum = Math.max(this.seqnum, key.readInt32BE(key.length - 4));
    }
    this.entries = entries;
    this.loadedAt = rollbacks;
  }

  numRecords(): number {
    return this.entries.length;
  }

  /** Buffers the record; false (nothing kept) when it is older than stream time minus the grace. */
  put(key: K, value: V, context: BufferedRecordContext, gracePeriodMs: number): boolean {
    const time = context.timestamp;
    if (this.streamTime - gracePeriodMs > time) return false;
    this.seqnum = (this.seqnum + 1) & 0x7fffffff;
    const keyBytes = this.keySerde.serialize(key);
    const storeKey = Buffer.allocUnsafe(PREFIX + 8 + keyBytes.length + 4);
    storeKey[0] = TIME_FIRST_PREFIX;
    writeLong(storeKey, time, PREFIX);
    keyBytes.copy(storeKey, PREFIX + 8);
    storeKey.writeInt32BE(this.seqnum, PREFIX + 8 + keyBytes.length);
    const newValue = this.valueSerde.serialize(value);
    this.buffer.put(storeKey, encodeBufferValue({ priorValue: null, oldValue: null, newValue, context }, 0));
    this.insert({ sortKey: storeKey.toString('latin1'), storeKey, time });
    this.streamTime = Math.max(this.streamTime, time);
    return true;
  }

  /** Hands every record at or before stream time minus the grace to `callback`, oldest first, and removes it. */
  evictExpired(gracePeriodMs: number, callback: (record: BufferedStreamRecord<K, V>) => void): void {
    const until = this.streamTime - gracePeriodMs;
    let taken = 0;
    while (taken < this.entries.length && this.entries[taken]!.time <= until) {
      const { storeKey } = this.entries[taken++]!;
      const { value } = decodeBufferValue(this.buffer.get(storeKey)!);
      this.buffer.delete(storeKey);
      const key = this.keySerde.deserialize(storeKey.subarray(PREFIX + 8, storeKey.length - 4));
      callback({ key, value: this.valueSerde.deserialize(value.newValue!), context: value.context });
    }
    if (taken > 0) this.entries.splice(0, taken);
  }

  private insert(entry: Entry): void {
    const list = this.entries;
    // Mostly in order: appended; an out-of-order record is placed by binary search.
    if (list.length === 0 || list[list.length - 1]!.sortKey < entry.sortKey) {
      list.push(entry);
      return;
    }
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (list[mid]!.sortKey < entry.sortKey) lo = mid + 1;
      else hi = mid;
    }
    list.splice(lo, 0, entry);
  }
}

/**
 * The join buffer's store in each task: key-value bytes whose changelog carries Java's bytes
 * (no format header, unlike the suppression buffer's).
 */
export function joinBufferBuilder<K, V>(
  name: string,
  keySerde: Serde<K> | undefined,
  valueSerde: Serde<V> | undefined,
): StoreBuilder<K, V> {
  return keyValueBytesStoreBuilder(
    name,
    { keySerde, valueSerde },
    {
      loggingEnabled: true,
      storeOver: (storeName, buffer, keys, values) =>
        new TimeOrderedJoinBuffer(storeName, buffer, keys, values),
    },
  );
}

import {
  type LastWriteTracking,
  type StoreSerde,
  type TransactionalBuffer,
  WindowKeySchema,
} from '@kstreams/state-store';
import { StreamsError } from '../errors.ts';
import type { Windowed } from '../windowed.ts';
import type { StateStore } from './state-store.ts';

/** One window of a key, as fetch(key, from, to) gives it: the window start and the value. */
export interface WindowStoreEntry<V> {
  readonly timestamp: number;
  readonly value: V;
}

/** Read access to a window store (Kafka Streams' ReadOnlyWindowStore; times in ms). */
export interface ReadOnlyWindowStore<K, V> {
  readonly name: string;
  /** The size of the store's windows (a window ends at start + size), where the store knows it. */
  readonly windowSizeMs?: number;
  /** The value of the window of `key` that starts at `windowStart`. */
  fetch(key: K, windowStart: number): V | undefined;
  /** The windows of `key` that start in [timeFrom, timeTo], oldest first. */
  fetch(key: K, timeFrom: number, timeTo: number): AsyncIterableIterator<WindowStoreEntry<V>>;
  /** The same, newest first. */
  backwardFetch(key: K, timeFrom: number, timeTo: number): AsyncIterableIterator<WindowStoreEntry<V>>;
  /** Every key's windows that start in [timeFrom, timeTo]. */
  fetchAll(timeFrom: number, timeTo: number): AsyncIterableIterator<{ key: Windowed<K>; value: V }>;
  all(): AsyncIterableIterator<{ key: Windowed<K>; value: V }>;
}

/** The window store processors write (Kafka Streams' WindowStore). */
export interface WindowStore<K, V> extends ReadOnlyWindowStore<K, V>, StateStore {
  /** Writes the value of the window starting at `windowStart`; null deletes it. */
  put(key: K, value: V | null, windowStart: number): void;
}

/**
 * A window store over a task's transactional buffer: keys in Kafka Streams' window key layout
 * (`[key][window start][seqnum]`, also the changelog's), so one key's windows sort by start.
 * Windows end at start + windowSize.
 */
export class TypedWindowStore<K, V> implements WindowStore<K, V>, LastWriteTracking {
  constructor(
    readonly name: string,
    private readonly buffer: TransactionalBuffer,
    private readonly keySerde: StoreSerde<K>,
    private readonly valueSerde: StoreSerde<V>,
    readonly windowSizeMs: number,
    /** Kafka Streams' retainDuplicates (a stream-stream join's stores): every put adds an entry. */
    private readonly retainDuplicates = false,
    /** Duplicates stores: fetches hide entries past retention at once, as Kafka Streams' do. */
    private readonly retentionMs = Number.POSITIVE_INFINITY,
  ) {}

  /** Not persisted, as in Kafka Streams: each put of a duplicates store takes the next one. */
  private seqnum = 0;
  /** The largest timestamp put since the last rollback (the bytes store knows the committed ones). */
  private pendingStreamTime = -1;
  private seenRollbacks = 0;

  /** The same buffer through another value serde (a timestamped view). */
  withValueSerde<V2>(wrap: (valueSerde: StoreSerde<V>) => StoreSerde<V2>): TypedWindowStore<K, V2> {
    return new TypedWindowStore(
      this.name,
      this.buffer,
      this.keySerde,
      wrap(this.valueSerde),
      this.windowSizeMs,
      this.retainDuplicates,
      this.retentionMs,
    );
  }

  /**
   * Kafka Streams' observed stream time of the store: the largest timestamp ever put, including
   * puts still in the task's buffer (the segmented bytes store knows only committed ones).
   */
  private observedStreamTime(): number {
    if (this.buffer.rollbackCount !== this.seenRollbacks) {
      this.seenRollbacks = this.buffer.rollbackCount;
      this.pendingStreamTime = -1;
    }
    const committed = (this.buffer.store as { observedStreamTime?: number }).observedStreamTime ?? -1;
    return Math.max(committed, this.pendingStreamTime);
  }

  put(key: K, value: V | null, windowStart: number): void {
    if (this.retainDuplicates) {
      // A null value deletes nothing here: entries are told apart only by their seqnum.
      if (value === null || value === undefined) return;
      this.observedStreamTime();
      // Kafka Streams advances the store's stream time also by a put it then drops as expired.
      this.pendingStreamTime = Math.max(this.pendingStreamTime, windowStart);
      this.seqnum = (this.seqnum + 1) & 0x7fffffff;
      const storeKey = WindowKeySchema.toStoreKey(this.keyBytes(key), windowStart, this.seqnum);
      this.buffer.put(storeKey, this.valueSerde.serialize(value));
      return;
    }
    const storeKey = WindowKeySchema.toStoreKey(this.keyBytes(key), windowStart);
    if (value === null || value === undefined) this.buffer.delete(storeKey);
    else this.buffer.put(storeKey, this.valueSerde.serialize(value));
  }

  get lastWrittenId(): string | undefined {
    return this.buffer.lastWrittenId;
  }

  get lastWrittenBytes(): number {
    return this.buffer.lastWrittenBytes;
  }

  fetch(key: K, windowStart: number): V | undefined;
  fetch(key: K, timeFrom: number, timeTo: number): AsyncIterableIterator<WindowStoreEntry<V>>;
  fetch(key: K, from: number, to?: number): V | undefined | AsyncIterableIterator<WindowStoreEntry<V>> {
    const keyBytes = this.keyBytes(key);
    if (to === undefined) {
      const bytes = this.buffer.get(WindowKeySchema.toStoreKey(keyBytes, from));
      return bytes === undefined ? undefined : this.valueSerde.deserialize(bytes);
    }
    return this.scanKey(keyBytes, from, to, false);
  }

  backwardFetch(key: K, timeFrom: number, timeTo: number): AsyncIterableIterator<WindowStoreEntry<V>> {
    return this.scanKey(this.keyBytes(key), timeFrom, timeTo, true);
  }

  fetchAll(timeFrom: number, timeTo: number): AsyncIterableIterator<{ key: Windowed<K>; value: V }> {
    return this.scanAll(timeFrom, timeTo);
  }

  all(): AsyncIterableIterator<{ key: Windowed<K>; value: V }> {
    return this.scanAll(Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY);
  }

  private async *scanKey(
    keyBytes: Buffer,
    from: number,
    to: number,
    backward: boolean,
  ): AsyncIterableIterator<WindowStoreEntry<V>> {
    if (this.retainDuplicates) {
      // A join must not see a record its store already expired, committed or not: Kafka Streams'
      // segmented store fetches from max(from, observed stream time - retention + 1).
      from = Math.max(from, this.observedStreamTime() - this.retentionMs + 1);
    }
    if (to < from) return;
    const range = this.buffer.range(
      WindowKeySchema.lowerBound(keyBytes, from),
      WindowKeySchema.upperBound(keyBytes, to),
    );
    const found: WindowStoreEntry<V>[] = [];
    for await (const { key, value } of range) {
      // A longer key that starts with these bytes sorts inside the range too.
      if (!WindowKeySchema.keyOf(key).equals(keyBytes)) continue;
      const entry = {
        timestamp: WindowKeySchema.windowStartOf(key),
        value: this.valueSerde.deserialize(value),
      };
      if (backward) found.push(entry);
      else yield entry;
    }
    for (let i = found.length - 1; i >= 0; i--) yield found[i]!;
  }

  private async *scanAll(from: number, to: number): AsyncIterableIterator<{ key: Windowed<K>; value: V }> {
    for await (const { key, value } of this.buffer.all()) {
      const start = WindowKeySchema.windowStartOf(key);
      if (start < from || start > to) continue;
      yield {
        key: {
          key: this.keySerde.deserialize(WindowKeySchema.keyOf(key)),
          window: { start, end: start + this.windowSizeMs },
        },
        value: this.valueSerde.deserialize(value),
      };
    }
  }

  private keyBytes(key: K): Buffer {
    if (key === null || key === undefined) {
      throw new StreamsError(`Window store "${this.name}": keys must not be null or undefined`);
    }
    return this.keySerde.serialize(key);
  }
}

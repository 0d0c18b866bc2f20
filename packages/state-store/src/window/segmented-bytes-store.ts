import { InvalidStoreArgumentError, StoreNotOpenError } from '../errors.ts';
import { requireBound, requireChanges, requireKey, requireValue } from '../store/validate.ts';
import type { ChangelogRecord, KeyValue, KeyValueBytesStore } from '../types.ts';
import { mergeAscending } from './merge-iterators.ts';

/** One time segment: Kafka Streams names it `storeName.segmentStartMs`. */
export interface SegmentInfo {
  /** floor(timestamp / segmentIntervalMs). */
  readonly id: number;
  readonly startMs: number;
  readonly name: string;
}

export interface SegmentedBytesStoreOptions {
  name: string;
  /** Whether the segments survive `close()` (LevelDB) or not (in memory). */
  persistent: boolean;
  /** Entries whose timestamp is `<= observedStreamTime - retentionMs` are expired. */
  retentionMs: number;
  segmentIntervalMs: number;
  /** The timestamp a key is segmented by: a window's start, a session's end. */
  timestampOf(key: Buffer): number;
  /** A new, unopened byte store for one segment. */
  segmentFactory(segment: SegmentInfo): KeyValueBytesStore;
  /** Deletes a closed segment's files as a whole (a LevelDB directory); in-memory needs nothing. */
  removeSegment?(segment: SegmentInfo): Promise<void>;
  /** Start times of the segments already on disk, re-opened by `open()`. */
  existingSegmentStarts?(): Promise<number[]>;
}

interface Segment {
  readonly info: SegmentInfo;
  readonly store: KeyValueBytesStore;
  /** Readers (iterators, counts, flushes) using the store: it is closed only once they are done. */
  users: number;
  retired: boolean;
}

/** Kafka Streams' default: `max(retention / 2, 60 s)`. */
export function defaultSegmentIntervalMs(retentionMs: number): number {
  return Math.max(Math.floor(retentionMs / 2), 60_000);
}

/** Kafka Streams' stream time before any record: ConsumerRecord.NO_TIMESTAMP. */
const NO_STREAM_TIME = -1;

/**
 * Kafka Streams' segmented bytes store (RocksDBSegmentedBytesStore over KeyValueSegments): a
 * byte store whose keys carry a timestamp, split into one byte store per time segment so that
 * retention drops whole segments (a directory removed, never a scan of expired keys).
 *
 * Stream time is the largest key timestamp written (put, delete, writeBatch, restore). A write
 * whose timestamp is already expired is dropped, as Kafka Streams drops expired records; reads
 * never show expired entries, even those still in the oldest live segment. Stream time is not
 * persisted: `open()` derives it from the largest key timestamp in the newest non-empty segment
 * (one scan of that segment), which is exactly what the writes had made it.
 *
 * Writes run one at a time, so a write that expires a segment never races another write into it;
 * a reader still iterating an expired segment keeps it open until it finishes.
 */
export class SegmentedBytesStore implements KeyValueBytesStore {
  readonly name: string;
  readonly persistent: boolean;
  readonly retentionMs: number;
  readonly segmentIntervalMs: number;
  private readonly options: SegmentedBytesStoreOptions;
  private readonly segments = new Map<number, Segment>();
  /** Live segment ids, ascending. */
  private ids: number[] = [];
  private readonly retiring = new Set<Segment>();
  private readonly pendingRemovals = new Set<Promise<void>>();
  private streamTime = NO_STREAM_TIME;
  private dropped = 0;
  private isOpen = false;
  private tail: Promise<unknown> = Promise.resolve();

  constructor(options: SegmentedBytesStoreOptions) {
    validateOptions(options);
    this.options = { ...options };
    this.name = options.name;
    this.persistent = options.persistent;
    this.retentionMs = options.retentionMs;
    this.segmentIntervalMs = options.segmentIntervalMs;
  }

  /** The largest key timestamp written so far; -1 before the first write. */
  get observedStreamTime(): number {
    return this.streamTime;
  }

  /** Writes dropped because their timestamp had expired (Kafka Streams' dropped-records sensor). */
  get expiredRecordsDropped(): number {
    return this.dropped;
  }

  /** Ids of the live segments, ascending. */
  liveSegments(): SegmentInfo[] {
    return this.ids.map((id) => this.segments.get(id)!.info);
  }

  /** Whether an entry with this timestamp is past retention at the current stream time. */
  isExpired(timestamp: number): boolean {
    return timestamp <= this.streamTime - this.retentionMs;
  }

  segmentIdOf(timestamp: number): number {
    return Math.floor(timestamp / this.segmentIntervalMs);
  }

  open(): Promise<void> {
    return this.serialize(async () => {
      if (this.isOpen) return;
      try {
        await this.openExisting();
      } catch (err) {
        // Leave nothing half-open: the next open() starts again from the directories.
        const opened = this.ids.map((id) => this.segments.get(id)!.store);
        this.segments.clear();
        this.ids = [];
        await Promise.allSettled(opened.map((store) => store.close()));
        throw err;
      }
      this.isOpen = true;
      await this.dropExpiredSegments();
    });
  }

  private async openExisting(): Promise<void> {
    const starts = (await this.options.existingSegmentStarts?.()) ?? [];
    for (const start of [...starts].sort((a, b) => a - b)) {
      // Catches most interval changes, not a new interval that divides the old one: segments keep
      // no record of their interval (Kafka Streams' do not either).
      if (start % this.segmentIntervalMs !== 0) {
        throw new InvalidStoreArgumentError(
          `Segmented store "${this.name}": segment ${this.name}.${start} on disk does not start at a multiple of ` +
            `segmentIntervalMs ${this.segmentIntervalMs}. The segment interval changed since the store was written: ` +
            'use the old interval, or delete the store directory so that it is restored from its changelog.',
        );
      }
      await this.createSegment(start / this.segmentIntervalMs);
    }
    this.streamTime = await this.newestTimestamp();
  }

  get(key: Buffer): Buffer | undefined {
    this.requireOpen();
    requireKey(this.name, key);
    const timestamp = this.timestampOf(key);
    if (this.isExpired(timestamp)) return undefined;
    return this.segments.get(this.segmentIdOf(timestamp))?.store.get(key);
  }

  put(key: Buffer, value: Buffer): Promise<void> {
    return this.serialize(async () => {
      this.requireOpen();
      requireKey(this.name, key);
      requireValue(this.name, value);
      const timestamp = this.timestampOf(key);
      await this.advanceStreamTime(timestamp);
      if (this.isExpired(timestamp)) {
        this.dropped++;
        return;
      }
      const segment = await this.getOrCreateSegment(this.segmentIdOf(timestamp));
      await segment.store.put(key, value);
    });
  }

  putIfAbsent(key: Buffer, value: Buffer): Promise<Buffer | undefined> {
    return this.serialize(async () => {
      const existing = this.get(key);
      if (existing !== undefined) return existing;
      requireValue(this.name, value);
      const timestamp = this.timestampOf(key);
      await this.advanceStreamTime(timestamp);
      if (this.isExpired(timestamp)) {
        this.dropped++;
        return undefined;
      }
      await (await this.getOrCreateSegment(this.segmentIdOf(timestamp))).store.put(key, value);
      return undefined;
    });
  }

  /** Advances stream time like a put (as Kafka Streams' remove does), but creates no segment. */
  delete(key: Buffer): Promise<void> {
    return this.serialize(async () => {
      this.requireOpen();
      requireKey(this.name, key);
      const timestamp = this.timestampOf(key);
      await this.advanceStreamTime(timestamp);
      if (this.isExpired(timestamp)) return;
      await this.segments.get(this.segmentIdOf(timestamp))?.store.delete(key);
    });
  }

  /**
   * One `writeBatch` per segment touched, oldest segment first. Each is atomic, the whole is not:
   * a crash between two segments leaves part of the batch applied. That is safe because a commit's
   * batch is written after its changelog records and before its checkpoint: after the crash the
   * checkpoint is older than the batch, and the restore replays its records (puts are idempotent).
   * Expiry is judged at the batch's final stream time, which is what replaying the records one by
   * one leaves visible.
   */
  writeBatch(changes: readonly ChangelogRecord[]): Promise<void> {
    return this.serialize(async () => {
      this.requireOpen();
      requireChanges(this.name, changes);
      if (changes.length === 0) return;
      const timestamps = changes.map(({ key }) => this.timestampOf(key));
      // A loop, not Math.max(...timestamps): a restore batch can pass the engine's argument limit.
      let newest = timestamps[0]!;
      for (const timestamp of timestamps) if (timestamp > newest) newest = timestamp;
      await this.advanceStreamTime(newest);
      const bySegment = new Map<number, { changes: ChangelogRecord[]; hasPut: boolean }>();
      changes.forEach((change, i) => {
        const timestamp = timestamps[i]!;
        if (this.isExpired(timestamp)) {
          if (change.value !== null) this.dropped++;
          return;
        }
        const id = this.segmentIdOf(timestamp);
        let group = bySegment.get(id);
        if (group === undefined) {
          group = { changes: [], hasPut: false };
          bySegment.set(id, group);
        }
        group.changes.push(change);
        if (change.value !== null) group.hasPut = true;
      });
      for (const id of [...bySegment.keys()].sort((a, b) => a - b)) {
        const group = bySegment.get(id)!;
        // Tombstones alone never create a segment: there is nothing in it to delete.
        const segment = group.hasPut ? await this.getOrCreateSegment(id) : this.segments.get(id);
        await segment?.store.writeBatch(group.changes);
      }
    });
  }

  range(from: Buffer | undefined, to: Buffer | undefined): AsyncIterableIterator<KeyValue> {
    this.requireOpen();
    requireBound(this.name, from, 'from');
    requireBound(this.name, to, 'to');
    if (from !== undefined && to !== undefined && Buffer.compare(from, to) > 0) return mergeAscending([]);
    // Acquired now, not when iteration starts, so that a write expiring a segment meanwhile
    // leaves it open for this reader.
    return this.iterateRange(this.acquireLive(), from, to);
  }

  all(): AsyncIterableIterator<KeyValue> {
    return this.range(undefined, undefined);
  }

  /** Sums the segments' counts; entries expired but still in the oldest live segment count too. */
  async approximateNumEntries(): Promise<number> {
    this.requireOpen();
    return this.withLive(async (live) => {
      const counts = await Promise.all(live.map((segment) => segment.store.approximateNumEntries()));
      return counts.reduce((sum, count) => sum + count, 0);
    });
  }

  async flush(): Promise<void> {
    this.requireOpen();
    await this.withLive(async (live) => {
      await Promise.all(live.map((segment) => segment.store.flush()));
    });
  }

  close(): Promise<void> {
    return this.serialize(async () => {
      this.isOpen = false;
      const live = this.ids.map((id) => this.segments.get(id)!);
      this.segments.clear();
      this.ids = [];
      this.streamTime = NO_STREAM_TIME;
      await Promise.all(live.map((segment) => segment.store.close()));
      // Expired segments still held by an unfinished reader: their files go now.
      const retiring = [...this.retiring];
      this.retiring.clear();
      await Promise.all([...retiring.map((segment) => this.destroy(segment)), ...this.pendingRemovals]);
    });
  }

  private async *iterateRange(
    live: Segment[],
    from: Buffer | undefined,
    to: Buffer | undefined,
  ): AsyncIterableIterator<KeyValue> {
    try {
      for await (const entry of mergeAscending(live.map((segment) => segment.store.range(from, to)))) {
        if (!this.isExpired(this.timestampOf(entry.key))) yield entry;
      }
    } finally {
      await this.release(live);
    }
  }

  private async withLive<T>(use: (live: Segment[]) => Promise<T>): Promise<T> {
    const live = this.acquireLive();
    try {
      return await use(live);
    } finally {
      await this.release(live);
    }
  }

  private acquireLive(): Segment[] {
    const live = this.ids.map((id) => this.segments.get(id)!);
    for (const segment of live) segment.users++;
    return live;
  }

  /** Resolves once the expired segments this reader was the last to hold are gone. */
  private async release(segments: Segment[]): Promise<void> {
    const removals: Promise<void>[] = [];
    for (const segment of segments) {
      segment.users--;
      if (segment.retired && segment.users === 0 && this.retiring.delete(segment)) {
        removals.push(this.trackRemoval(this.destroy(segment)));
      }
    }
    await Promise.all(removals);
  }

  private async advanceStreamTime(timestamp: number): Promise<void> {
    if (timestamp <= this.streamTime) return;
    this.streamTime = timestamp;
    await this.dropExpiredSegments();
  }

  /** Segments below the one holding `streamTime - retention` hold only expired timestamps. */
  private async dropExpiredSegments(): Promise<void> {
    const minLiveId = this.segmentIdOf(this.streamTime - this.retentionMs);
    const removals: Promise<void>[] = [];
    while (this.ids.length > 0 && this.ids[0]! < minLiveId) {
      const segment = this.segments.get(this.ids.shift()!)!;
      this.segments.delete(segment.info.id);
      segment.retired = true;
      if (segment.users === 0) removals.push(this.destroy(segment));
      else this.retiring.add(segment);
    }
    await Promise.all(removals);
  }

  private async destroy(segment: Segment): Promise<void> {
    await segment.store.close();
    await this.options.removeSegment?.(segment.info);
  }

  // A failed removal is not the reader's error: it leaves a directory that the next open()
  // re-opens and expires again.
  private trackRemoval(removal: Promise<void>): Promise<void> {
    const tracked: Promise<void> = removal
      .catch(() => {})
      .finally(() => this.pendingRemovals.delete(tracked));
    this.pendingRemovals.add(tracked);
    return tracked;
  }

  private async getOrCreateSegment(id: number): Promise<Segment> {
    return this.segments.get(id) ?? (await this.createSegment(id));
  }

  private async createSegment(id: number): Promise<Segment> {
    const startMs = id * this.segmentIntervalMs;
    const info: SegmentInfo = { id, startMs, name: `${this.name}.${startMs}` };
    const store = this.options.segmentFactory(info);
    await store.open();
    const segment: Segment = { info, store, users: 0, retired: false };
    this.segments.set(id, segment);
    this.ids.push(id);
    this.ids.sort((a, b) => a - b);
    return segment;
  }

  private async newestTimestamp(): Promise<number> {
    for (let i = this.ids.length - 1; i >= 0; i--) {
      let newest = Number.NEGATIVE_INFINITY;
      for await (const { key } of this.segments.get(this.ids[i]!)!.store.all()) {
        newest = Math.max(newest, this.timestampOf(key));
      }
      if (newest !== Number.NEGATIVE_INFINITY) return newest;
    }
    return NO_STREAM_TIME;
  }

  private timestampOf(key: Buffer): number {
    const timestamp = this.options.timestampOf(key);
    if (!Number.isSafeInteger(timestamp)) {
      throw new InvalidStoreArgumentError(
        `Segmented store "${this.name}": the key's timestamp must be an integer number of milliseconds, got ${timestamp}.`,
      );
    }
    return timestamp;
  }

  // Runs after the previous operation settles, whether it failed or not.
  private serialize<T>(operation: () => Promise<T>): Promise<T> {
    const run = this.tail.then(operation, operation);
    this.tail = run.catch(() => {});
    return run;
  }

  private requireOpen(): void {
    if (!this.isOpen) throw new StoreNotOpenError(this.name);
  }
}

function validateOptions(options: SegmentedBytesStoreOptions): void {
  if (typeof options?.name !== 'string' || options.name.length === 0) {
    throw new InvalidStoreArgumentError('SegmentedBytesStore: options.name must be a non-empty string.');
  }
  const prefix = `Segmented store "${options.name}"`;
  if (!Number.isSafeInteger(options.retentionMs) || options.retentionMs < 0) {
    throw new InvalidStoreArgumentError(
      `${prefix}: retentionMs must be a non-negative integer number of milliseconds, got ${options.retentionMs}.`,
    );
  }
  if (!Number.isSafeInteger(options.segmentIntervalMs) || options.segmentIntervalMs <= 0) {
    throw new InvalidStoreArgumentError(
      `${prefix}: segmentIntervalMs must be a positive integer number of milliseconds, got ${options.segmentIntervalMs} ` +
        '(Kafka Streams uses max(retention / 2, 60000): see defaultSegmentIntervalMs).',
    );
  }
  for (const field of ['timestampOf', 'segmentFactory'] as const) {
    if (typeof options[field] !== 'function') {
      throw new InvalidStoreArgumentError(`${prefix}: options.${field} must be a function.`);
    }
  }
}

import { InvalidStoreArgumentError } from '../errors.ts';
import { requireKey, requireValue } from '../store/validate.ts';
import type { KeyValueBytesStore } from '../types.ts';
import {
  decodeHistory,
  decodeLatest,
  decodeLong,
  EXPIRY_PREFIX,
  encodeHistory,
  encodeLatest,
  encodeLong,
  expiryKey,
  findVersion,
  historyKey,
  type Latest,
  latestKey,
  META_KEY,
  oldestValidTo,
  parseExpiryKey,
  type Version,
} from './versioned-format.ts';

/** Kafka Streams' VersionedKeyValueStore.PUT_RETURN_CODE_VALID_TO_UNDEFINED: the put is the latest. */
export const PUT_RETURN_CODE_VALID_TO_UNDEFINED = -1;
/** Kafka Streams' PUT_RETURN_CODE_NOT_PUT (Long.MIN_VALUE): older than the history retention. */
export const PUT_RETURN_CODE_NOT_PUT = Number.MIN_SAFE_INTEGER;

const EMPTY = Buffer.alloc(0);

/** Kafka Streams' ConsumerRecord.NO_TIMESTAMP: the stream time before any put. */
const NO_STREAM_TIME = -1;

/** A version as a read returns it (Kafka Streams' VersionedRecord); `validTo` undefined: latest. */
export interface VersionedBytesRecord {
  value: Buffer;
  timestamp: number;
  validTo: number | undefined;
}

/** One put as the changelog carries it: key, value (null: a delete) and the put's timestamp. */
export interface VersionedChange {
  key: Buffer;
  value: Buffer | null;
  timestamp: number;
}

/** What the store reads and writes through: the task's transactional buffer, or a restore's. */
export interface VersionedBackend {
  get(key: Buffer): Buffer | undefined;
  put(key: Buffer, value: Buffer): void;
  delete(key: Buffer): unknown;
  readonly rollbackCount?: number;
}

export interface VersionedStoreOptions {
  name: string;
  /** How far behind the observed stream time `get(key, asOf)` answers and a put is accepted. */
  historyRetentionMs: number;
  /** The granularity of cleanup (Kafka Streams' segment interval); default as Kafka Streams'. */
  segmentIntervalMs?: number;
}

/** Kafka Streams' default segment interval of a versioned store (RocksDbVersionedKeyValueBytesStoreSupplier). */
export function defaultVersionedSegmentIntervalMs(historyRetentionMs: number): number {
  const h = historyRetentionMs;
  if (h <= 60_000) return Math.max(Math.floor(h / 3), 2_000);
  if (h <= 300_000) return Math.max(Math.floor(h / 5), 20_000);
  if (h <= 3_600_000) return Math.max(Math.floor(h / 12), 60_000);
  return Math.max(Math.floor(h / 24), 300_000);
}

/**
 * Kafka Streams' versioned key-value store (KIP-889) over byte keys and values: every put carries
 * a timestamp, the store keeps each key's versions for `historyRetentionMs` behind the observed
 * stream time (the largest timestamp put), and `get(key, asOf)` finds the version valid then. The
 * latest version of a key never expires. Writes go through a backend (the task's transactional
 * buffer), so uncommitted versions never reach the byte store; each accepted put is remembered
 * for the changelog until `committed()` or a rollback.
 */
export class VersionedBytesStore {
  readonly name: string;
  readonly historyRetentionMs: number;
  readonly segmentIntervalMs: number;
  private pending: VersionedChange[] = [];
  private streamTime: number | undefined;
  private seenRollbacks = 0;

  constructor(
    private readonly backend: VersionedBackend,
    options: VersionedStoreOptions,
  ) {
    const { name, historyRetentionMs } = options;
    if (!Number.isSafeInteger(historyRetentionMs) || historyRetentionMs < 0) {
      throw new InvalidStoreArgumentError(
        `Versioned store "${name}": historyRetentionMs must be a non-negative integer, got ${historyRetentionMs}.`,
      );
    }
    const interval = options.segmentIntervalMs ?? defaultVersionedSegmentIntervalMs(historyRetentionMs);
    if (!Number.isSafeInteger(interval) || interval < 1) {
      throw new InvalidStoreArgumentError(
        `Versioned store "${name}": segmentIntervalMs must be a positive integer, got ${interval}.`,
      );
    }
    this.name = name;
    this.historyRetentionMs = historyRetentionMs;
    this.segmentIntervalMs = interval;
  }

  /** The largest timestamp put so far (committed or buffered); -1 before any. */
  get observedStreamTime(): number {
    this.syncWithRollbacks();
    if (this.streamTime === undefined) {
      const bytes = this.backend.get(META_KEY);
      this.streamTime = bytes === undefined ? NO_STREAM_TIME : decodeLong(bytes);
    }
    return this.streamTime;
  }

  /**
   * Puts a version (value null: a tombstone). Returns PUT_RETURN_CODE_VALID_TO_UNDEFINED when it
   * is the latest, the timestamp of the next newer version when it is not, and
   * PUT_RETURN_CODE_NOT_PUT when it is older than the history retention (nothing written).
   */
  put(key: Buffer, value: Buffer | null, timestamp: number): number {
    requireKey(this.name, key);
    if (value !== null) requireValue(this.name, value);
    this.requireTimestamp(timestamp);
    const streamTime = this.observedStreamTime;
    // Logged even when too old to store, as Kafka Streams' change-logging layer does (a restore
    // drops it again).
    this.pending.push({ key, value, timestamp });
    if (timestamp < streamTime - this.historyRetentionMs) return PUT_RETURN_CODE_NOT_PUT;
    if (timestamp > streamTime) {
      this.streamTime = timestamp;
      this.backend.put(META_KEY, encodeLong(timestamp));
    }
    const lk = latestKey(key);
    const latestBytes = this.backend.get(lk);
    const latest = latestBytes === undefined ? undefined : decodeLatest(latestBytes);
    if (latest === undefined || timestamp >= latest.timestamp) {
      if (latest !== undefined && timestamp > latest.timestamp) {
        this.appendHistory(key, { ...latest, validTo: timestamp });
      }
      // The expiry index moves only when the latest version moves to another segment.
      const segment = this.segmentOf(timestamp);
      if (latest === undefined || this.segmentOf(latest.timestamp) !== segment) {
        if (latest !== undefined) this.backend.delete(expiryKey(this.segmentOf(latest.timestamp), key));
        this.backend.put(expiryKey(segment, key), EMPTY);
      }
      this.backend.put(lk, encodeLatest({ timestamp, value }));
      return PUT_RETURN_CODE_VALID_TO_UNDEFINED;
    }
    return this.putOutOfOrder(key, value, timestamp, latest);
  }

  /** The latest version, if it is not a tombstone (Kafka Streams' get(key)). */
  get(key: Buffer): VersionedBytesRecord | undefined {
    requireKey(this.name, key);
    const bytes = this.backend.get(latestKey(key));
    if (bytes === undefined) return undefined;
    const latest = decodeLatest(bytes);
    return latest.value === null
      ? undefined
      : { value: latest.value, timestamp: latest.timestamp, validTo: undefined };
  }

  /**
   * The version valid at `asOfTimestamp` (Kafka Streams' get(key, asOfTimestamp)): undefined if it
   * is a tombstone, if there is none, or if `asOfTimestamp` is older than the history retention
   * and the latest version is newer than it.
   */
  getAsOf(key: Buffer, asOfTimestamp: number): VersionedBytesRecord | undefined {
    requireKey(this.name, key);
    const bytes = this.backend.get(latestKey(key));
    const latest = bytes === undefined ? undefined : decodeLatest(bytes);
    if (latest !== undefined && latest.timestamp <= asOfTimestamp) {
      return latest.value === null
        ? undefined
        : { value: latest.value, timestamp: latest.timestamp, validTo: undefined };
    }
    if (asOfTimestamp < this.observedStreamTime - this.historyRetentionMs) return undefined;
    const found = findVersion(this.backend.get(historyKey(key)), asOfTimestamp);
    return found === undefined || found.value === null
      ? undefined
      : { value: found.value, timestamp: found.timestamp, validTo: found.validTo };
  }

  /**
   * The versions of a key valid at some time in [fromTime, toTime], oldest first, tombstones left
   * out (Kafka Streams' MultiVersionedKeyQuery): a version counts from its timestamp until its
   * validTo (the latest: for ever). As Kafka Streams' RocksDBVersionedStore answers it: a `toTime`
   * older than the history retention finds the latest version alone; otherwise every version in a
   * live segment counts, a segment (by the version's validTo) expiring whole, so a version that
   * ended just before the retention's cutoff may still be listed. (The Java app restoring
   * kstreams' changelog in test/runtime/versioned-java-restore.int.test.ts answers so.)
   */
  versions(key: Buffer, fromTime: number, toTime: number): VersionedBytesRecord[] {
    requireKey(this.name, key);
    const cutoff = this.observedStreamTime - this.historyRetentionMs;
    const found: VersionedBytesRecord[] = [];
    for (const v of toTime < cutoff ? [] : this.history(key)) {
      if (v.value === null || this.expired(v.validTo)) continue;
      if (v.timestamp <= toTime && v.validTo > fromTime)
        found.push({ value: v.value, timestamp: v.timestamp, validTo: v.validTo });
    }
    const bytes = this.backend.get(latestKey(key));
    const latest = bytes === undefined ? undefined : decodeLatest(bytes);
    if (latest !== undefined && latest.value !== null && latest.timestamp <= toTime)
      found.push({ value: latest.value, timestamp: latest.timestamp, validTo: undefined });
    return found;
  }

  /**
   * Puts a tombstone at `timestamp` and returns the version that was valid then (Kafka Streams'
   * delete(key, timestamp)); undefined and nothing written when older than the history retention.
   */
  delete(key: Buffer, timestamp: number): VersionedBytesRecord | undefined {
    requireKey(this.name, key);
    this.requireTimestamp(timestamp);
    if (timestamp < this.observedStreamTime - this.historyRetentionMs) {
      this.pending.push({ key, value: null, timestamp });
      return undefined;
    }
    const existing = this.getAsOf(key, timestamp);
    this.put(key, null, timestamp);
    return existing;
  }

  /** The puts and deletes since the last commit or rollback, in order: the changelog records. */
  pendingChanges(): readonly VersionedChange[] {
    this.syncWithRollbacks();
    return this.pending;
  }

  /** The backend committed what was pending: forget it (the changelog has it). */
  committed(): void {
    this.pending = [];
  }

  /**
   * Segment cleanup (Kafka Streams drops expired segments): deletes, straight from the byte store,
   * the histories of keys whose latest version is in a segment wholly older than the committed
   * stream time minus the history retention (and the key itself when that latest is a tombstone).
   * Call it only when nothing is buffered, so the stream time read is the committed one.
   * Returns the number of keys cleaned.
   */
  async cleanup(store: KeyValueBytesStore): Promise<number> {
    const meta = store.get(META_KEY);
    if (meta === undefined) return 0;
    const cutoff = decodeLong(meta) - this.historyRetentionMs;
    const firstLive = this.segmentOf(Math.max(cutoff, 0));
    const deletes: Buffer[] = [];
    let cleaned = 0;
    const iterator = store.range(EXPIRY_PREFIX, expiryKey(firstLive, Buffer.alloc(0)));
    for await (const { key: indexKey } of iterator) {
      const { segmentId, key } = parseExpiryKey(indexKey);
      if (segmentId >= firstLive) break;
      cleaned++;
      deletes.push(indexKey, historyKey(key));
      const latest = store.get(latestKey(key));
      if (latest !== undefined && decodeLatest(latest).value === null) deletes.push(latestKey(key));
    }
    if (deletes.length > 0) await store.writeBatch(deletes.map((key) => ({ key, value: null })));
    return cleaned;
  }

  private putOutOfOrder(key: Buffer, value: Buffer | null, timestamp: number, latest: Latest): number {
    const versions = this.history(key);
    const same = versions.find((v) => v.timestamp === timestamp);
    if (same !== undefined) {
      same.value = value;
      this.writeHistory(key, versions);
      return same.validTo;
    }
    // The next newer version ends the new one; the one before now ends where the new one starts.
    const next = versions.find((v) => v.timestamp > timestamp);
    const validTo = next?.timestamp ?? latest.timestamp;
    const before = versions.filter((v) => v.timestamp < timestamp);
    const previous = before[before.length - 1];
    if (previous !== undefined && previous.validTo > timestamp) previous.validTo = timestamp;
    const after = versions.filter((v) => v.timestamp > timestamp);
    this.writeHistory(key, [...before, { timestamp, validTo, value }, ...after]);
    return validTo;
  }

  private history(key: Buffer): Version[] {
    return decodeHistory(this.backend.get(historyKey(key)));
  }

  /**
   * Adds the version that stopped being the latest at the end of the key's history: appended to the
   * stored bytes as they are while the oldest version is still readable, else rewritten without
   * the expired ones.
   */
  private appendHistory(key: Buffer, version: Version): void {
    const hk = historyKey(key);
    const stored = this.backend.get(hk);
    if (stored === undefined || !this.expired(oldestValidTo(stored))) {
      const added = encodeHistory([version]);
      this.backend.put(hk, stored === undefined ? added : Buffer.concat([stored, added]));
      return;
    }
    this.writeHistory(key, [...decodeHistory(stored), version]);
  }

  /** Writes a key's history without the versions of expired segments (no read reaches them). */
  private writeHistory(key: Buffer, versions: readonly Version[]): void {
    const live = versions.filter((v) => !this.expired(v.validTo));
    if (live.length === 0) this.backend.delete(historyKey(key));
    else this.backend.put(historyKey(key), encodeHistory(live));
  }

  /**
   * Whether a version that ended at `validTo` is gone: Kafka Streams keeps it in the segment of its
   * validTo and drops segments whole, once they are older than the segment of observed stream
   * time minus the history retention (AbstractSegments' minLiveSegment).
   */
  private expired(validTo: number): boolean {
    return this.segmentOf(validTo) < this.segmentOf(this.observedStreamTime - this.historyRetentionMs);
  }

  private segmentOf(timestamp: number): number {
    return Math.floor(timestamp / this.segmentIntervalMs);
  }

  /** A rollback dropped the buffered puts and stream time: forget them here too. */
  private syncWithRollbacks(): void {
    const rollbacks = this.backend.rollbackCount ?? 0;
    if (rollbacks !== this.seenRollbacks) {
      this.seenRollbacks = rollbacks;
      this.pending = [];
      this.streamTime = undefined;
    }
  }

  private requireTimestamp(timestamp: number): void {
    if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
      throw new InvalidStoreArgumentError(
        `Versioned store "${this.name}": timestamps must be non-negative integers (epoch ms), got ${timestamp}.`,
      );
    }
  }
}

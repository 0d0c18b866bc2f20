import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { InvalidStoreArgumentError } from '../errors.ts';
import { InMemoryKeyValueStore } from '../store/in-memory-key-value-store.ts';
import { LevelKeyValueStore, type LevelKeyValueStoreOptions } from '../store/level-key-value-store.ts';
import { SessionKeySchema, WindowKeySchema } from './key-schema.ts';
import { defaultSegmentIntervalMs, SegmentedBytesStore, type SegmentInfo } from './segmented-bytes-store.ts';

export interface SegmentedStoreOptions {
  name: string;
  retentionMs: number;
  /** Default: Kafka Streams' max(retentionMs / 2, 60 s). */
  segmentIntervalMs?: number;
}

export interface LevelSegmentedStoreOptions
  extends SegmentedStoreOptions,
    Omit<LevelKeyValueStoreOptions, 'name' | 'location'> {
  /**
   * The store's directory, `<stateDir>/<applicationId>/<taskId>/<storeName>/`; each segment is a
   * LevelDB database in `<location>/<storeName>.<segmentStartMs>/`, as Kafka Streams lays them out.
   */
  location: string;
}

type TimestampOf = (key: Buffer) => number;

/** A window store's bytes (keys `WindowKeySchema.toStoreKey`), segmented by window start. */
export function levelWindowBytesStore(options: LevelSegmentedStoreOptions): SegmentedBytesStore {
  return levelSegmentedStore(options, windowStartOf(options.name));
}

export function inMemoryWindowBytesStore(options: SegmentedStoreOptions): SegmentedBytesStore {
  return inMemorySegmentedStore(options, windowStartOf(options.name));
}

/** A session store's bytes (keys `SessionKeySchema.toBinary`), segmented by session end as in Kafka Streams. */
export function levelSessionBytesStore(options: LevelSegmentedStoreOptions): SegmentedBytesStore {
  return levelSegmentedStore(options, sessionEndOf(options.name));
}

export function inMemorySessionBytesStore(options: SegmentedStoreOptions): SegmentedBytesStore {
  return inMemorySegmentedStore(options, sessionEndOf(options.name));
}

function levelSegmentedStore(
  options: LevelSegmentedStoreOptions,
  timestampOf: TimestampOf,
): SegmentedBytesStore {
  const { name, location, retentionMs, segmentIntervalMs, ...levelOptions } = options;
  if (typeof location !== 'string' || location.length === 0) {
    throw new InvalidStoreArgumentError(
      `Segmented store "${name}": options.location must be the store directory, e.g. <stateDir>/<applicationId>/<taskId>/<storeName>.`,
    );
  }
  const segmentDir = (segment: SegmentInfo): string => join(location, segment.name);
  return new SegmentedBytesStore({
    name,
    persistent: true,
    retentionMs,
    segmentIntervalMs: segmentIntervalMs ?? defaultSegmentIntervalMs(retentionMs),
    timestampOf,
    segmentFactory: (segment) =>
      new LevelKeyValueStore({ ...levelOptions, name: segment.name, location: segmentDir(segment) }),
    removeSegment: (segment) => rm(segmentDir(segment), { recursive: true, force: true }),
    existingSegmentStarts: () => segmentStartsOnDisk(location, name),
  });
}

function inMemorySegmentedStore(
  options: SegmentedStoreOptions,
  timestampOf: TimestampOf,
): SegmentedBytesStore {
  return new SegmentedBytesStore({
    name: options.name,
    persistent: false,
    retentionMs: options.retentionMs,
    segmentIntervalMs: options.segmentIntervalMs ?? defaultSegmentIntervalMs(options.retentionMs),
    timestampOf,
    segmentFactory: (segment) => new InMemoryKeyValueStore(segment.name),
  });
}

async function segmentStartsOnDisk(location: string, name: string): Promise<number[]> {
  let entries: import('node:fs').Dirent[];
  try {
    entries = await readdir(location, { withFileTypes: true });
  } catch (err) {
    if ((err as { code?: unknown }).code === 'ENOENT') return [];
    throw err;
  }
  const prefix = `${name}.`;
  const starts: number[] = [];
  for (const entry of entries) {
    if (!entry.isDirectory() || !entry.name.startsWith(prefix)) continue;
    const start = entry.name.slice(prefix.length);
    if (/^-?\d+$/.test(start)) starts.push(Number(start));
  }
  return starts;
}

function windowStartOf(storeName: string): TimestampOf {
  return (key) => {
    requireSuffix(
      storeName,
      key,
      WindowKeySchema.SUFFIX_SIZE,
      'WindowKeySchema.toStoreKey(key, windowStart, seqnum)',
    );
    return WindowKeySchema.windowStartOf(key);
  };
}

function sessionEndOf(storeName: string): TimestampOf {
  return (key) => {
    requireSuffix(storeName, key, SessionKeySchema.SUFFIX_SIZE, 'SessionKeySchema.toBinary(key, start, end)');
    return SessionKeySchema.fromBinary(key).end;
  };
}

function requireSuffix(storeName: string, key: Buffer, size: number, builder: string): void {
  if (key.length < size) {
    throw new InvalidStoreArgumentError(
      `Segmented store "${storeName}": a key of ${key.length} bytes cannot hold its ${size}-byte time suffix; build store keys with ${builder}.`,
    );
  }
}

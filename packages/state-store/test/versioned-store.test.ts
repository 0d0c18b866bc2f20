import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  defaultVersionedSegmentIntervalMs,
  encodeRestoreValue,
  InMemoryKeyValueStore,
  InvalidStoreArgumentError,
  type KeyValueBytesStore,
  LevelKeyValueStore,
  PUT_RETURN_CODE_NOT_PUT,
  PUT_RETURN_CODE_VALID_TO_UNDEFINED,
  TransactionalBuffer,
  VersionedBytesStore,
  VersionedRestoreTarget,
} from '../src/index.ts';
import { b, tempDir } from './helpers.ts';

const kinds = [
  {
    kind: 'in memory',
    create: async () => ({ store: new InMemoryKeyValueStore('v'), remove: async () => {} }),
  },
  {
    kind: 'LevelDB',
    create: async () => {
      const { dir, remove } = await tempDir();
      return { store: new LevelKeyValueStore({ name: 'v', location: `${dir}/v` }), remove };
    },
  },
];

const text = (r: { value: Buffer } | undefined) => r?.value.toString();

describe.each(kinds)('VersionedBytesStore ($kind)', ({ create }) => {
  let store: KeyValueBytesStore;
  let remove: () => Promise<void>;
  let buffer: TransactionalBuffer;
  let v: VersionedBytesStore;
  const open = (retention = 100, segmentIntervalMs = 10) => {
    buffer = new TransactionalBuffer(store);
    v = new VersionedBytesStore(buffer, { name: 'v', historyRetentionMs: retention, segmentIntervalMs });
  };

  beforeEach(async () => {
    ({ store, remove } = await create());
    await store.open();
    open();
  });
  afterEach(async () => {
    await store.close();
    await remove();
  });

  it('keeps every version and answers get(key, asOf) with the one valid then', () => {
    expect(v.put(b('k'), b('a'), 10)).toBe(PUT_RETURN_CODE_VALID_TO_UNDEFINED);
    expect(v.put(b('k'), b('b'), 20)).toBe(PUT_RETURN_CODE_VALID_TO_UNDEFINED);
    expect(v.put(b('k'), b('c'), 30)).toBe(PUT_RETURN_CODE_VALID_TO_UNDEFINED);
    expect(text(v.get(b('k')))).toBe('c');
    expect(v.getAsOf(b('k'), 9)).toBeUndefined();
    expect(v.getAsOf(b('k'), 10)).toEqual({ value: b('a'), timestamp: 10, validTo: 20 });
    expect(text(v.getAsOf(b('k'), 25))).toBe('b');
    expect(v.getAsOf(b('k'), 1000)).toEqual({ value: b('c'), timestamp: 30, validTo: undefined });
  });

  it('puts an out-of-order version into history and returns its validTo', () => {
    v.put(b('k'), b('a'), 10);
    v.put(b('k'), b('c'), 30);
    expect(v.put(b('k'), b('b'), 20)).toBe(30);
    expect(v.getAsOf(b('k'), 15)).toEqual({ value: b('a'), timestamp: 10, validTo: 20 });
    expect(v.getAsOf(b('k'), 25)).toEqual({ value: b('b'), timestamp: 20, validTo: 30 });
    expect(text(v.get(b('k')))).toBe('c');
    // Same timestamp: replaces the version, keeps its validTo.
    expect(v.put(b('k'), b('B'), 20)).toBe(30);
    expect(text(v.getAsOf(b('k'), 29))).toBe('B');
    // Older than every version: valid until the oldest.
    expect(v.put(b('k'), b('z'), 5)).toBe(10);
    expect(text(v.getAsOf(b('k'), 7))).toBe('z');
  });

  it('tombstones end a version: reads in their range are null, delete returns what was valid', () => {
    v.put(b('k'), b('a'), 10);
    expect(v.delete(b('k'), 20)).toEqual({ value: b('a'), timestamp: 10, validTo: undefined });
    expect(v.get(b('k'))).toBeUndefined();
    expect(v.getAsOf(b('k'), 25)).toBeUndefined();
    expect(text(v.getAsOf(b('k'), 19))).toBe('a');
    v.put(b('k'), b('c'), 30);
    expect(v.getAsOf(b('k'), 25)).toBeUndefined();
    // An out-of-order tombstone splits a version.
    expect(v.put(b('k'), null, 15)).toBe(20);
    expect(v.getAsOf(b('k'), 16)).toBeUndefined();
    expect(text(v.getAsOf(b('k'), 14))).toBe('a');
  });

  it('refuses puts older than the history retention and answers older reads with null', () => {
    v.put(b('k'), b('a'), 10);
    v.put(b('k'), b('b'), 200);
    expect(v.observedStreamTime).toBe(200);
    expect(v.put(b('k'), b('x'), 99)).toBe(PUT_RETURN_CODE_NOT_PUT);
    expect(v.delete(b('k'), 99)).toBeUndefined();
    // Kafka Streams' change-logging layer logs them all the same (a restore drops them again).
    expect(v.pendingChanges().map((c) => [c.value?.toString() ?? null, c.timestamp])).toEqual([
      ['a', 10],
      ['b', 200],
      ['x', 99],
      [null, 99],
    ]);
    expect(v.put(b('k'), b('y'), 100)).toBe(200);
    expect(v.getAsOf(b('k'), 99)).toBeUndefined();
    expect(text(v.getAsOf(b('k'), 150))).toBe('y');
    // The latest version never expires.
    v.put(b('j'), b('only'), 150);
    v.put(b('k'), b('c'), 1000);
    expect(text(v.getAsOf(b('j'), 500))).toBe('only');
    expect(v.getAsOf(b('k'), 500)).toBeUndefined();
  });

  it('lists the versions of live segments, as Kafka Streams does, and the latest alone past the retention', () => {
    // Retention 100, segments of 10. Stream time 205: cutoff 105, first live segment [100, 110).
    v.put(b('j'), b('only'), 20);
    v.put(b('k'), b('a'), 10); // valid [10, 50): segment 5, expired
    v.put(b('k'), b('b'), 50); // valid [50, 103): ended before the cutoff, in a live segment
    v.put(b('k'), b('c'), 103); // valid [103, 205)
    v.put(b('k'), b('d'), 205);
    const all = (from: number, to: number) => v.versions(b('k'), from, to).map((r) => text(r));
    expect(all(0, 1000)).toEqual(['b', 'c', 'd']);
    expect(all(0, 105)).toEqual(['b', 'c']);
    expect(all(104, 1000)).toEqual(['c', 'd']);
    // A toTime older than the retention: Kafka Streams reads only the latest version (the latest
    // never expires; k's is too new).
    expect(all(0, 104)).toEqual([]);
    expect(v.versions(b('j'), 0, 30).map((r) => text(r))).toEqual(['only']);
  });

  it('under a transactional buffer: nothing reaches the store before commit, rollback drops all', async () => {
    v.put(b('k'), b('a'), 10);
    expect(v.pendingChanges()).toHaveLength(1);
    expect(store.get(Buffer.from('Lk'))).toBeUndefined();
    buffer.rollback();
    expect(v.get(b('k'))).toBeUndefined();
    expect(v.observedStreamTime).toBe(-1);
    expect(v.pendingChanges()).toEqual([]);
    v.put(b('k'), b('a'), 10);
    v.put(b('k'), b('b'), 20);
    await buffer.commit();
    v.committed();
    open();
    expect(text(v.getAsOf(b('k'), 15))).toBe('a');
    expect(v.observedStreamTime).toBe(20);
    v.put(b('k'), b('c'), 30);
    buffer.rollback();
    expect(text(v.get(b('k')))).toBe('b');
    expect(v.observedStreamTime).toBe(20);
  });

  it('cleanup drops histories of keys whose latest is older than the retention', async () => {
    v.put(b('old'), b('1'), 0);
    v.put(b('old'), b('2'), 5);
    v.put(b('gone'), b('1'), 1);
    v.delete(b('gone'), 6);
    v.put(b('new'), b('1'), 100);
    v.put(b('new'), b('2'), 300);
    await buffer.commit();
    expect(await v.cleanup(store)).toBe(2);
    expect(store.get(Buffer.from('Hold'))).toBeUndefined();
    expect(store.get(Buffer.from('Lgone'))).toBeUndefined();
    expect(text(v.get(b('old')))).toBe('2');
    expect(store.get(Buffer.from('Hnew'))).toBeDefined();
    expect(await v.cleanup(store)).toBe(0);
  });

  it('restores from changelog records by replaying puts with their timestamps', async () => {
    const target = new VersionedRestoreTarget(store, { name: 'v', historyRetentionMs: 100 });
    await target.writeBatch([
      { key: b('k'), value: encodeRestoreValue(20, b('b')) },
      { key: b('k'), value: encodeRestoreValue(10, b('a')) },
      { key: b('k'), value: encodeRestoreValue(30, null) },
    ]);
    open();
    expect(v.get(b('k'))).toBeUndefined();
    expect(text(v.getAsOf(b('k'), 15))).toBe('a');
    expect(text(v.getAsOf(b('k'), 25))).toBe('b');
    expect(v.observedStreamTime).toBe(30);
  });

  it('rejects bad arguments with a message saying what to change', () => {
    expect(() => v.put(b('k'), b('a'), -5)).toThrow(InvalidStoreArgumentError);
    expect(() => new VersionedBytesStore(buffer, { name: 'x', historyRetentionMs: -1 })).toThrow(
      /historyRetentionMs/,
    );
  });
});

describe('defaultVersionedSegmentIntervalMs', () => {
  it("follows Kafka Streams' RocksDbVersionedKeyValueBytesStoreSupplier", () => {
    expect(defaultVersionedSegmentIntervalMs(30_000)).toBe(10_000);
    expect(defaultVersionedSegmentIntervalMs(3_000)).toBe(2_000);
    expect(defaultVersionedSegmentIntervalMs(200_000)).toBe(40_000);
    expect(defaultVersionedSegmentIntervalMs(1_200_000)).toBe(100_000);
    expect(defaultVersionedSegmentIntervalMs(86_400_000)).toBe(3_600_000);
  });
});

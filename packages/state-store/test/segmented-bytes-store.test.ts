import { readdir } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  defaultSegmentIntervalMs,
  InvalidStoreArgumentError,
  inMemorySessionBytesStore,
  inMemoryWindowBytesStore,
  levelSessionBytesStore,
  levelWindowBytesStore,
  type SegmentedBytesStore,
  SessionKeySchema,
  StoreNotOpenError,
  WindowKeySchema,
} from '../src/index.ts';
import { b, tempDir } from './helpers.ts';

const RETENTION = 120_000;
const INTERVAL = 60_000;

const wk = (key: string, windowStart: number): Buffer => WindowKeySchema.toStoreKey(b(key), windowStart);
const show = (key: Buffer): string =>
  `${WindowKeySchema.keyOf(key).toString()}@${WindowKeySchema.windowStartOf(key)}`;

async function keysOf(iterator: AsyncIterable<{ key: Buffer }>): Promise<string[]> {
  const out: string[] = [];
  for await (const { key } of iterator) out.push(show(key));
  return out;
}

interface Kind {
  kind: string;
  persistent: boolean;
  create(dir: string, options?: { retentionMs?: number; segmentIntervalMs?: number }): SegmentedBytesStore;
}

const kinds: Kind[] = [
  {
    kind: 'LevelDB segments',
    persistent: true,
    create: (dir, options) =>
      levelWindowBytesStore({
        name: 'counts',
        location: `${dir}/counts`,
        retentionMs: options?.retentionMs ?? RETENTION,
        segmentIntervalMs: options?.segmentIntervalMs ?? INTERVAL,
      }),
  },
  {
    kind: 'in-memory segments',
    persistent: false,
    create: (_dir, options) =>
      inMemoryWindowBytesStore({
        name: 'counts',
        retentionMs: options?.retentionMs ?? RETENTION,
        segmentIntervalMs: options?.segmentIntervalMs ?? INTERVAL,
      }),
  },
];

describe.each(kinds)('SegmentedBytesStore contract: $kind', ({ persistent, create }) => {
  let dir: string;
  let remove: () => Promise<void>;
  let store: SegmentedBytesStore;

  const segmentDirs = async (): Promise<string[]> => (await readdir(`${dir}/counts`).catch(() => [])).sort();

  beforeEach(async () => {
    ({ dir, remove } = await tempDir());
    store = create(dir);
    await store.open();
  });

  afterEach(async () => {
    await store.close();
    await remove();
  });

  it('puts each key into the segment of its timestamp and gets it back synchronously', async () => {
    await store.put(wk('a', 10_000), b('1'));
    await store.put(wk('a', 61_000), b('2'));
    await store.put(wk('b', 125_000), b('3'));
    expect(store.get(wk('a', 10_000))?.toString()).toBe('1');
    expect(store.get(wk('a', 61_000))?.toString()).toBe('2');
    expect(store.get(wk('b', 125_000))?.toString()).toBe('3');
    expect(store.get(wk('a', 20_000))).toBeUndefined();
    expect(store.liveSegments().map((s) => s.name)).toEqual(['counts.0', 'counts.60000', 'counts.120000']);
    expect(store.observedStreamTime).toBe(125_000);
    expect(await store.approximateNumEntries()).toBe(3);
    if (persistent) expect(await segmentDirs()).toEqual(['counts.0', 'counts.120000', 'counts.60000']);
  });

  it('ranges in ascending byte order across segments, keys that prefix others included', async () => {
    const keys = [
      wk('ab', 100_000),
      wk('a', 70_000),
      wk('b', 10_000),
      wk('a', 10_000),
      wk('ab', 10_000),
      wk('a\u0000', 110_000),
      wk('a', 119_999),
    ];
    for (const key of keys) await store.put(key, key);
    const sorted = [...keys].sort(Buffer.compare).map(show);
    expect(await keysOf(store.all())).toEqual(sorted);
    // One key's windows across two segments: exactly the bounds WindowKeySchema builds.
    // One key's window bounds also take in a longer key's early windows ("a\0"): byte order, not
    // key order, which the typed window view filters out.
    const lower = WindowKeySchema.lowerBound(b('a'), 0);
    const upper = WindowKeySchema.upperBound(b('a'), 80_000);
    const inBounds = keys.filter((k) => Buffer.compare(k, lower) >= 0 && Buffer.compare(k, upper) <= 0);
    expect(await keysOf(store.range(lower, upper))).toEqual(inBounds.sort(Buffer.compare).map(show));
    expect(inBounds.map(show)).toContain('a\u0000@110000');
    expect(await keysOf(store.range(wk('a', 70_000), wk('ab', 10_000)))).toEqual(
      sorted.slice(sorted.indexOf('a@70000'), sorted.indexOf('ab@10000') + 1),
    );
    expect(await keysOf(store.range(wk('b', 0), wk('a', 0)))).toEqual([]);
  });

  it('drops whole segments once stream time passes retention, and never shows them again', async () => {
    await store.put(wk('a', 0), b('old'));
    await store.put(wk('b', 70_000), b('old'));
    await store.put(wk('c', 130_001), b('live'));
    if (persistent) expect(await segmentDirs()).toEqual(['counts.0', 'counts.120000', 'counts.60000']);
    // Stream time 250,000: everything at or before 130,000 has expired; segments 0 and 1 entirely.
    await store.put(wk('d', 250_000), b('new'));
    expect(store.liveSegments().map((s) => s.name)).toEqual(['counts.120000', 'counts.240000']);
    if (persistent) expect(await segmentDirs()).toEqual(['counts.120000', 'counts.240000']);
    expect(store.get(wk('a', 0))).toBeUndefined();
    expect(store.get(wk('b', 70_000))).toBeUndefined();
    expect(await keysOf(store.all())).toEqual(['c@130001', 'd@250000']);
    expect(await store.approximateNumEntries()).toBe(2);
  });

  it('hides expired entries still in the oldest live segment', async () => {
    await store.put(wk('a', 130_000), b('x'));
    await store.put(wk('a', 130_001), b('y'));
    await store.put(wk('z', 250_000), b('z'));
    expect(store.isExpired(130_000)).toBe(true);
    expect(store.get(wk('a', 130_000))).toBeUndefined();
    expect(store.get(wk('a', 130_001))?.toString()).toBe('y');
    expect(await keysOf(store.all())).toEqual(['a@130001', 'z@250000']);
  });

  it('drops a late put whose timestamp has expired, creating no segment', async () => {
    await store.put(wk('a', 250_000), b('now'));
    await store.put(wk('late', 100_000), b('late'));
    await store.put(wk('edge', 130_000), b('late'));
    await store.put(wk('ok', 130_001), b('kept'));
    expect(store.expiredRecordsDropped).toBe(2);
    expect(store.get(wk('late', 100_000))).toBeUndefined();
    expect(store.get(wk('ok', 130_001))?.toString()).toBe('kept');
    expect(store.liveSegments().map((s) => s.startMs)).toEqual([120_000, 240_000]);
    if (persistent) expect(await segmentDirs()).toEqual(['counts.120000', 'counts.240000']);
  });

  it('applies a writeBatch across segments at the batch’s stream time, tombstones included', async () => {
    await store.put(wk('gone', 65_000), b('x'));
    await store.writeBatch([
      { key: wk('a', 10_000), value: b('expired-by-this-batch') },
      { key: wk('b', 65_000), value: b('1') },
      { key: wk('gone', 65_000), value: null },
      { key: wk('c', 150_000), value: b('2') },
      { key: wk('b', 65_000), value: b('3') },
      { key: wk('never', 500), value: null },
    ]);
    expect(store.observedStreamTime).toBe(150_000);
    expect(store.expiredRecordsDropped).toBe(1);
    expect(await keysOf(store.all())).toEqual(['b@65000', 'c@150000']);
    expect(store.get(wk('b', 65_000))?.toString()).toBe('3');
    expect(store.liveSegments().map((s) => s.startMs)).toEqual([60_000, 120_000]);
    await store.writeBatch([{ key: wk('x', 300_000), value: null }]);
    expect(store.observedStreamTime).toBe(300_000);
    expect(store.liveSegments()).toEqual([]);
    expect(await keysOf(store.all())).toEqual([]);
  });

  it('rejects a writeBatch with a bad key before writing any of it', async () => {
    const bad = [
      { key: wk('a', 1_000), value: b('1') },
      { key: b('short'), value: b('2') },
    ];
    await expect(store.writeBatch(bad)).rejects.toThrow(/cannot hold its 12-byte time suffix/);
    expect(store.get(wk('a', 1_000))).toBeUndefined();
    expect(store.observedStreamTime).toBe(-1);
  });

  it('lets a reader finish a segment that expires under it', async () => {
    for (let i = 0; i < 5; i++) await store.put(wk(`k${i}`, 1_000), b(`${i}`));
    const seen: string[] = [];
    const iterator = store.all();
    seen.push(show((await iterator.next()).value.key));
    await store.put(wk('new', 400_000), b('n'));
    for await (const { key } of iterator) seen.push(show(key));
    // Entries read after the expiry are hidden; the first one was read before it.
    expect(seen).toEqual(['k0@1000']);
    if (persistent) expect(await segmentDirs()).toEqual(['counts.360000']);
    expect(await keysOf(store.all())).toEqual(['new@400000']);
  });

  it('removes an expired segment at close when a reader never finished it', async () => {
    await store.put(wk('a', 1_000), b('1'));
    await store.put(wk('b', 1_000), b('2'));
    const iterator = store.all();
    expect(show((await iterator.next()).value.key)).toBe('a@1000');
    await store.put(wk('new', 400_000), b('n'));
    if (persistent) expect(await segmentDirs()).toEqual(['counts.0', 'counts.360000']);
    await store.close();
    if (persistent) expect(await segmentDirs()).toEqual(['counts.360000']);
    await iterator.return?.();
    await store.open();
    expect(await keysOf(store.all())).toEqual(persistent ? ['new@400000'] : []);
  });

  it('putIfAbsent and delete follow the segment of the key', async () => {
    expect(await store.putIfAbsent(wk('a', 70_000), b('first'))).toBeUndefined();
    expect((await store.putIfAbsent(wk('a', 70_000), b('second')))?.toString()).toBe('first');
    await store.delete(wk('a', 70_000));
    expect(store.get(wk('a', 70_000))).toBeUndefined();
    await store.delete(wk('absent', 200_000));
    expect(store.observedStreamTime).toBe(200_000);
    expect(store.liveSegments().map((s) => s.startMs)).toEqual([60_000]);
  });

  it('keeps entries and stream time across close and open only when persistent', async () => {
    await store.put(wk('a', 10_000), b('1'));
    await store.put(wk('b', 100_000), b('2'));
    await store.put(wk('a', 95_000), b('3'));
    await store.flush();
    await store.close();
    await store.close();
    expect(() => store.get(wk('a', 10_000))).toThrow(StoreNotOpenError);
    await store.open();
    if (!persistent) {
      expect(await keysOf(store.all())).toEqual([]);
      expect(store.observedStreamTime).toBe(-1);
      return;
    }
    expect(await keysOf(store.all())).toEqual(['a@10000', 'a@95000', 'b@100000']);
    expect(store.observedStreamTime).toBe(100_000);
    // The recovered stream time still expires: 200,001 - 120,000 leaves nothing at or before 80,001.
    await store.put(wk('c', 200_001), b('4'));
    await store.put(wk('late', 80_000), b('5'));
    expect(store.expiredRecordsDropped).toBe(1);
    expect(await keysOf(store.all())).toEqual(['a@95000', 'b@100000', 'c@200001']);
    expect(await segmentDirs()).toEqual(['counts.180000', 'counts.60000']);
  });

  it('refuses use before open with a clear error', async () => {
    const fresh = create(dir, {});
    expect(() => fresh.get(wk('a', 0))).toThrow(StoreNotOpenError);
    await expect(fresh.put(wk('a', 0), b('v'))).rejects.toThrow(/call open\(\)/);
    expect(fresh.persistent).toBe(persistent);
  });
});

describe('SegmentedBytesStore options and factories', () => {
  it('defaults the segment interval as Kafka Streams does: max(retention / 2, 60 s)', () => {
    expect(defaultSegmentIntervalMs(86_400_000)).toBe(43_200_000);
    expect(defaultSegmentIntervalMs(30_000)).toBe(60_000);
    expect(inMemoryWindowBytesStore({ name: 'w', retentionMs: 3_600_000 }).segmentIntervalMs).toBe(1_800_000);
  });

  it('rejects bad retention and interval with what to pass', () => {
    expect(() => inMemoryWindowBytesStore({ name: 'w', retentionMs: -1 })).toThrow(
      /retentionMs must be a non-negative/,
    );
    expect(() => inMemoryWindowBytesStore({ name: 'w', retentionMs: 10, segmentIntervalMs: 0 })).toThrow(
      InvalidStoreArgumentError,
    );
    expect(() => levelWindowBytesStore({ name: 'w', location: '', retentionMs: 10 })).toThrow(
      /options.location/,
    );
  });

  it('segments session keys by their end time', async () => {
    const store = inMemorySessionBytesStore({
      name: 'sessions',
      retentionMs: RETENTION,
      segmentIntervalMs: INTERVAL,
    });
    await store.open();
    await store.put(SessionKeySchema.toBinary(b('k'), 10_000, 130_000), b('long'));
    await store.put(SessionKeySchema.toBinary(b('k'), 50_000, 59_000), b('short'));
    expect(store.observedStreamTime).toBe(130_000);
    expect(store.liveSegments().map((s) => s.startMs)).toEqual([0, 120_000]);
    await store.put(SessionKeySchema.toBinary(b('k'), 200_000, 200_000), b('next'));
    // The long session started before the short one but ends later: only it survives.
    expect(store.liveSegments().map((s) => s.startMs)).toEqual([120_000, 180_000]);
    expect(store.get(SessionKeySchema.toBinary(b('k'), 10_000, 130_000))?.toString()).toBe('long');
    expect(store.get(SessionKeySchema.toBinary(b('k'), 50_000, 59_000))).toBeUndefined();
    await store.close();
  });

  it('re-opens LevelDB session segments from disk and refuses a changed segment interval', async () => {
    const { dir, remove } = await tempDir();
    try {
      const options = { name: 'sessions', location: `${dir}/sessions`, retentionMs: RETENTION };
      const store = levelSessionBytesStore({ ...options, segmentIntervalMs: INTERVAL });
      await store.open();
      await store.put(SessionKeySchema.toBinary(b('k'), 1_000, 90_000), b('v'));
      await store.close();
      const reopened = levelSessionBytesStore({ ...options, segmentIntervalMs: INTERVAL });
      await reopened.open();
      expect(reopened.get(SessionKeySchema.toBinary(b('k'), 1_000, 90_000))?.toString()).toBe('v');
      expect(reopened.observedStreamTime).toBe(90_000);
      await reopened.close();
      const changed = levelSessionBytesStore({ ...options, segmentIntervalMs: 50_000 });
      await expect(changed.open()).rejects.toThrow(/segment interval changed/);
    } finally {
      await remove();
    }
  });
});

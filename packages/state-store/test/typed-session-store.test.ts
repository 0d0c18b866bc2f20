import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  InvalidStoreArgumentError,
  inMemorySessionBytesStore,
  levelSessionBytesStore,
  type SegmentedBytesStore,
  type SessionEntry,
  SessionKeySchema,
  type StoreSerde,
  TransactionalBuffer,
  TypedSessionStore,
} from '../src/index.ts';
import { b, tempDir } from './helpers.ts';

const stringSerde: StoreSerde<string> = {
  serialize: (data) => Buffer.from(data, 'utf8'),
  deserialize: (data) => data.toString('utf8'),
};

const countSerde: StoreSerde<number> = {
  serialize: (data) => {
    const bytes = Buffer.alloc(8);
    bytes.writeBigInt64BE(BigInt(data));
    return bytes;
  },
  deserialize: (data) => Number(data.readBigInt64BE(0)),
};

async function sessions(iterator: AsyncIterable<SessionEntry<string, number>>): Promise<string[]> {
  const out: string[] = [];
  for await (const { key, value } of iterator) out.push(`${key.key}[${key.start},${key.end}]=${value}`);
  return out;
}

describe.each([
  { kind: 'in memory', persistent: false },
  { kind: 'LevelDB', persistent: true },
])('TypedSessionStore over a TransactionalBuffer ($kind)', ({ persistent }) => {
  let remove: () => Promise<void>;
  let bytes: SegmentedBytesStore;
  let buffer: TransactionalBuffer;
  let store: TypedSessionStore<string, number>;

  beforeEach(async () => {
    const temp = await tempDir();
    remove = temp.remove;
    const options = { name: 'clicks', retentionMs: 600_000, segmentIntervalMs: 60_000 };
    bytes = persistent
      ? levelSessionBytesStore({ ...options, location: `${temp.dir}/clicks` })
      : inMemorySessionBytesStore(options);
    await bytes.open();
    buffer = new TransactionalBuffer(bytes);
    store = new TypedSessionStore('clicks', buffer, stringSerde, countSerde);
  });

  afterEach(async () => {
    await bytes.close();
    await remove();
  });

  it('finds the sessions that end at or after the earliest end and start at or before the latest start', async () => {
    store.put({ key: 'u', start: 0, end: 5_000 }, 1);
    store.put({ key: 'u', start: 10_000, end: 20_000 }, 2);
    store.put({ key: 'u', start: 30_000, end: 30_000 }, 3);
    store.put({ key: 'u', start: 40_000, end: 90_000 }, 4);
    await buffer.commit();
    expect(await sessions(store.findSessions('u', 20_000, 40_000))).toEqual([
      'u[10000,20000]=2',
      'u[30000,30000]=3',
      'u[40000,90000]=4',
    ]);
    expect(await sessions(store.findSessions('u', 20_001, 39_999))).toEqual(['u[30000,30000]=3']);
    // A merger asks for [t - gap, t + gap], which can start below zero.
    expect(await sessions(store.findSessions('u', -5_000, 4_000))).toEqual(['u[0,5000]=1']);
    expect(await sessions(store.findSessions('u', 95_000, 100_000))).toEqual([]);
  });

  it('orders by end time, then start time, forward and backward', async () => {
    store.put({ key: 'u', start: 50_000, end: 70_000 }, 1);
    store.put({ key: 'u', start: 10_000, end: 70_000 }, 2);
    store.put({ key: 'u', start: 60_000, end: 65_000 }, 3);
    await buffer.commit();
    store.put({ key: 'u', start: 0, end: 80_000 }, 4);
    const forward = ['u[60000,65000]=3', 'u[10000,70000]=2', 'u[50000,70000]=1', 'u[0,80000]=4'];
    expect(await sessions(store.fetch('u'))).toEqual(forward);
    expect(await sessions(store.backwardFetch('u'))).toEqual([...forward].reverse());
    expect(await sessions(store.backwardFindSessions('u', 66_000, 55_000))).toEqual([
      'u[0,80000]=4',
      'u[50000,70000]=1',
      'u[10000,70000]=2',
    ]);
  });

  it('does not show sessions of keys that start with the asked key, nor of keys it starts with', async () => {
    store.put({ key: 'a', start: 1_000, end: 2_000 }, 1);
    store.put({ key: 'ab', start: 1_000, end: 2_000 }, 2);
    store.put({ key: 'a\u0000', start: 0, end: 0 }, 3);
    store.put({ key: '', start: 1_500, end: 1_500 }, 4);
    await buffer.commit();
    store.put({ key: 'abc', start: 1_000, end: 3_000 }, 5);
    expect(await sessions(store.fetch('a'))).toEqual(['a[1000,2000]=1']);
    expect(await sessions(store.fetch('ab'))).toEqual(['ab[1000,2000]=2']);
    expect(await sessions(store.fetch('a\u0000'))).toEqual(['a\u0000[0,0]=3']);
    expect(await sessions(store.fetch(''))).toEqual(['[1500,1500]=4']);
    // The raw scan does hold the longer keys: the filter is what keeps them out.
    const raw: string[] = [];
    const from = SessionKeySchema.toBinary(b('a'), 0, 0);
    for await (const { key } of buffer.range(from, Buffer.concat([b('a'), Buffer.alloc(16, 0x7f)]))) {
      raw.push(SessionKeySchema.fromBinary(key).key.toString());
    }
    expect(raw.length).toBeGreaterThan(1);
  });

  it('fetches one session exactly, and put(null) and remove delete it', async () => {
    store.put({ key: 'u', start: 1_000, end: 2_000 }, 7);
    store.put({ key: 'u', start: 3_000, end: 4_000 }, 8);
    expect(store.fetchSession('u', 1_000, 2_000)).toBe(7);
    expect(store.fetchSession('u', 1_000, 2_001)).toBeUndefined();
    await buffer.commit();
    store.put({ key: 'u', start: 1_000, end: 2_000 }, null);
    store.remove({ key: 'u', start: 3_000, end: 4_000 });
    expect(store.fetchSession('u', 1_000, 2_000)).toBeUndefined();
    expect(await sessions(store.fetch('u'))).toEqual([]);
    // The deletes are changelog tombstones in Kafka Streams' session key layout.
    expect(buffer.pendingChanges()).toEqual([
      { key: SessionKeySchema.toBinary(b('u'), 1_000, 2_000), value: null },
      { key: SessionKeySchema.toBinary(b('u'), 3_000, 4_000), value: null },
    ]);
    await buffer.commit();
    expect(bytes.get(SessionKeySchema.toBinary(b('u'), 1_000, 2_000))).toBeUndefined();
  });

  it('shows uncommitted writes, drops them on rollback, and writes them to the segments on commit', async () => {
    store.put({ key: 'u', start: 0, end: 1_000 }, 1);
    await buffer.commit();
    store.put({ key: 'u', start: 0, end: 1_000 }, 2);
    store.put({ key: 'u', start: 70_000, end: 130_000 }, 3);
    expect(await sessions(store.fetch('u'))).toEqual(['u[0,1000]=2', 'u[70000,130000]=3']);
    expect(bytes.liveSegments().map((s) => s.startMs)).toEqual([0]);
    buffer.rollback();
    expect(await sessions(store.fetch('u'))).toEqual(['u[0,1000]=1']);
    store.put({ key: 'u', start: 70_000, end: 130_000 }, 4);
    await buffer.commit();
    // Segmented by session end: 130,000 lands in the segment starting at 120,000.
    expect(bytes.liveSegments().map((s) => s.startMs)).toEqual([0, 120_000]);
    expect(await sessions(store.fetch('u'))).toEqual(['u[0,1000]=1', 'u[70000,130000]=4']);
  });

  it('rejects null keys and impossible sessions with what to pass', () => {
    expect(() => store.put({ key: null as unknown as string, start: 0, end: 1 }, 1)).toThrow(
      /must not be null/,
    );
    expect(() => store.put({ key: 'u', start: 5, end: 4 }, 1)).toThrow(/start <= end/);
    expect(() => store.remove({ key: 'u', start: -1, end: 4 })).toThrow(InvalidStoreArgumentError);
    expect(() => store.findSessions('u', Number.NaN, 0)).toThrow(/earliestSessionEndTime/);
  });
});

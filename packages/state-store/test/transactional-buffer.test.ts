import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  InMemoryKeyValueStore,
  InvalidStoreArgumentError,
  type KeyValueBytesStore,
  LevelKeyValueStore,
  ENTRY_OVERHEAD_BYTES as O,
  TransactionalBuffer,
  UncommittedBytesBudget,
} from '../src/index.ts';
import { b, entries, tempDir } from './helpers.ts';

const stores: {
  kind: string;
  create: () => Promise<{ store: KeyValueBytesStore; cleanup: () => Promise<void> }>;
}[] = [
  {
    kind: 'InMemoryKeyValueStore',
    create: async () => ({ store: new InMemoryKeyValueStore('s'), cleanup: async () => {} }),
  },
  {
    kind: 'LevelKeyValueStore',
    create: async () => {
      const { dir, remove } = await tempDir();
      return { store: new LevelKeyValueStore({ name: 's', location: `${dir}/s` }), cleanup: remove };
    },
  },
];

describe.each(stores)('TransactionalBuffer over $kind', ({ create }) => {
  let store: KeyValueBytesStore;
  let cleanup: () => Promise<void>;
  let buffer: TransactionalBuffer;

  beforeEach(async () => {
    ({ store, cleanup } = await create());
    await store.open();
    await store.writeBatch([
      { key: b('a'), value: b('store-a') },
      { key: b('c'), value: b('store-c') },
      { key: b('e'), value: b('store-e') },
    ]);
    buffer = new TransactionalBuffer(store);
  });

  afterEach(async () => {
    await store.close();
    await cleanup();
  });

  it('reads the buffer first, then the store', () => {
    buffer.put(b('a'), b('buffered-a'));
    expect(buffer.get(b('a'))?.toString()).toBe('buffered-a');
    expect(buffer.get(b('c'))?.toString()).toBe('store-c');
    expect(store.get(b('a'))?.toString()).toBe('store-a');
  });

  it('hides a store value behind a buffered delete and returns the old value', () => {
    expect(buffer.delete(b('c'))?.toString()).toBe('store-c');
    expect(buffer.get(b('c'))).toBeUndefined();
    expect(buffer.delete(b('c'))).toBeUndefined();
    expect(store.get(b('c'))?.toString()).toBe('store-c');
  });

  it('putIfAbsent sees both the buffer and the store', () => {
    expect(buffer.putIfAbsent(b('a'), b('x'))?.toString()).toBe('store-a');
    expect(buffer.putIfAbsent(b('new'), b('first'))).toBeUndefined();
    expect(buffer.putIfAbsent(b('new'), b('second'))?.toString()).toBe('first');
    buffer.delete(b('c'));
    expect(buffer.putIfAbsent(b('c'), b('again'))).toBeUndefined();
    expect(buffer.get(b('c'))?.toString()).toBe('again');
  });

  it('merges buffer and store in range() and all(), including buffered deletes', async () => {
    buffer.put(b('b'), b('buffered-b'));
    buffer.delete(b('c'));
    buffer.put(b('e'), b('buffered-e'));
    buffer.put(b('f'), b('buffered-f'));
    buffer.delete(b('zz-absent'));
    expect(await entries(buffer.all())).toEqual([
      'a=store-a',
      'b=buffered-b',
      'e=buffered-e',
      'f=buffered-f',
    ]);
    expect(await entries(buffer.range(b('b'), b('e')))).toEqual(['b=buffered-b', 'e=buffered-e']);
    expect(await entries(buffer.range(b('c'), b('d')))).toEqual([]);
    expect(await entries(buffer.range(undefined, b('a')))).toEqual(['a=store-a']);
    expect(await entries(buffer.range(b('e0'), undefined))).toEqual(['f=buffered-f']);
  });

  it('merges when only the buffer or only the store has entries in range', async () => {
    buffer.put(b('0'), b('zero'));
    buffer.delete(b('a'));
    buffer.delete(b('c'));
    buffer.delete(b('e'));
    expect(await entries(buffer.all())).toEqual(['0=zero']);
    buffer.rollback();
    expect(await entries(buffer.all())).toEqual(['a=store-a', 'c=store-c', 'e=store-e']);
  });

  it('pendingChanges gives the last value per key and null for deletes, without clearing', () => {
    buffer.put(b('x'), b('1'));
    buffer.put(b('x'), b('2'));
    buffer.put(b('y'), b('1'));
    buffer.delete(b('y'));
    buffer.delete(b('a'));
    const changes = buffer
      .pendingChanges()
      .map(({ key, value }) => [key.toString(), value?.toString() ?? null]);
    expect(changes.sort()).toEqual([
      ['a', null],
      ['x', '2'],
      ['y', null],
    ]);
    expect(buffer.hasPendingChanges()).toBe(true);
    expect(buffer.pendingChanges()).toHaveLength(3);
  });

  it('commit applies the whole buffer in one writeBatch, then clears it', async () => {
    const writeBatch = vi.spyOn(store, 'writeBatch');
    buffer.put(b('b'), b('new-b'));
    buffer.delete(b('c'));
    buffer.put(b('a'), b('new-a'));
    await buffer.commit();
    expect(writeBatch).toHaveBeenCalledTimes(1);
    expect(writeBatch.mock.calls[0]?.[0]).toHaveLength(3);
    expect(await entries(store.all())).toEqual(['a=new-a', 'b=new-b', 'e=store-e']);
    expect(buffer.hasPendingChanges()).toBe(false);
    expect(buffer.pendingChanges()).toEqual([]);
    expect(buffer.uncommittedBytes).toBe(0);
    await buffer.commit();
    expect(writeBatch).toHaveBeenCalledTimes(1);
  });

  it('keeps writes made while a commit is in flight for the next commit', async () => {
    buffer.put(b('k1'), b('v1'));
    buffer.put(b('k2'), b('v1'));
    const committing = buffer.commit();
    buffer.put(b('k2'), b('v2'));
    buffer.put(b('k3'), b('v2'));
    expect(buffer.get(b('k1'))?.toString()).toBe('v1');
    await committing;
    expect(buffer.pendingChanges().map(({ key, value }) => `${key}=${value}`)).toEqual(['k2=v2', 'k3=v2']);
    expect(store.get(b('k2'))?.toString()).toBe('v1');
    expect(buffer.get(b('k2'))?.toString()).toBe('v2');
    await buffer.commit();
    expect(store.get(b('k3'))?.toString()).toBe('v2');
    expect(buffer.hasPendingChanges()).toBe(false);
  });

  it('rollback drops the buffer and leaves the store untouched', async () => {
    buffer.put(b('a'), b('changed'));
    buffer.delete(b('c'));
    buffer.put(b('new'), b('n'));
    buffer.rollback();
    expect(buffer.hasPendingChanges()).toBe(false);
    expect(buffer.uncommittedBytes).toBe(0);
    expect(buffer.get(b('a'))?.toString()).toBe('store-a');
    expect(buffer.get(b('c'))?.toString()).toBe('store-c');
    expect(buffer.get(b('new'))).toBeUndefined();
    await buffer.commit();
    expect(await entries(store.all())).toEqual(['a=store-a', 'c=store-c', 'e=store-e']);
  });

  it('keeps the buffer when the store rejects the batch, so the owner can roll back or retry', async () => {
    buffer.put(b('k'), b('v'));
    vi.spyOn(store, 'writeBatch').mockRejectedValueOnce(new Error('disk full'));
    await expect(buffer.commit()).rejects.toThrow('disk full');
    expect(buffer.get(b('k'))?.toString()).toBe('v');
    await buffer.commit();
    expect(store.get(b('k'))?.toString()).toBe('v');
  });

  it('counts entries through the buffer', async () => {
    buffer.put(b('new'), b('1'));
    buffer.put(b('a'), b('overwrite'));
    buffer.delete(b('c'));
    buffer.delete(b('absent'));
    expect(await buffer.approximateNumEntries()).toBe(3);
  });

  it('keeps every byte and the write order of a large buffer, whose values it holds as strings', async () => {
    // Past 8,192 values the buffer copies them out of their Buffers: binary keys and values with
    // every byte from 0 to 255 must come back unchanged, in range order and in changelog order.
    const n = 20_000;
    const keyOf = (i: number) => Buffer.from([0x70, (i >> 8) & 0xff, i & 0xff, 0x00, 0xff]);
    const valueAt = (i: number, round: number) => Buffer.from([i & 0xff, 0x80 + round, 0xff, 0x00, i >> 8]);
    for (let i = 0; i < n; i++) buffer.put(keyOf(i), valueAt(i, 0));
    for (let i = 0; i < n; i += 3) buffer.put(keyOf(i), valueAt(i, 1));
    for (let i = 1; i < n; i += 5) buffer.delete(keyOf(i));
    const expected = (i: number) => (i % 5 === 1 ? undefined : valueAt(i, i % 3 === 0 ? 1 : 0));
    for (const i of [0, 1, 2, 3, 255, 256, 8191, 8192, 8193, n - 1]) {
      expect(buffer.get(keyOf(i))).toEqual(expected(i));
    }
    const changes = buffer.pendingChanges();
    expect(changes).toHaveLength(n);
    // Changelog order is the order of the last writes: first the untouched puts, then the
    // rewritten ones, then the deletes.
    expect(changes[0]).toEqual({ key: keyOf(2), value: valueAt(2, 0) });
    expect(changes[n - 1]).toEqual({ key: keyOf(n - 4), value: null });
    const ranged = [];
    for await (const { key, value } of buffer.range(keyOf(0), keyOf(n))) ranged.push([key, value]);
    expect(ranged).toHaveLength(n - n / 5);
    expect(ranged[0]).toEqual([keyOf(0), valueAt(0, 1)]);
    expect(ranged[1]).toEqual([keyOf(2), valueAt(2, 0)]);
    await buffer.commit();
    for (const i of [0, 1, 2, 8191, 8192, n - 1]) expect(store.get(keyOf(i))).toEqual(expected(i));
    expect(await buffer.approximateNumEntries()).toBe(3 + n - n / 5);
  });

  it('tracks uncommitted key and value bytes, plus an overhead per entry', () => {
    buffer.put(b('key'), b('value'));
    expect(buffer.uncommittedBytes).toBe(O + 8);
    buffer.put(b('key'), b('v'));
    expect(buffer.uncommittedBytes).toBe(O + 4);
    buffer.delete(b('key'));
    expect(buffer.uncommittedBytes).toBe(O + 3);
    buffer.put(b('other'), b('v'));
    expect(buffer.uncommittedBytes).toBe(2 * O + 9);
  });
});

describe('TransactionalBuffer size bound', () => {
  it('asks for a commit once per crossing of maxUncommittedBytes', async () => {
    const store = new InMemoryKeyValueStore('s');
    await store.open();
    const onCommitRequested = vi.fn();
    const buffer = new TransactionalBuffer(store, { maxUncommittedBytes: 3 * O + 100, onCommitRequested });
    const value = Buffer.alloc(30);
    buffer.put(b('k1'), value);
    buffer.put(b('k2'), value);
    buffer.put(b('k3'), value);
    expect(buffer.uncommittedBytes).toBe(3 * O + 96);
    expect(onCommitRequested).not.toHaveBeenCalled();
    buffer.put(b('k4'), value);
    expect(onCommitRequested).toHaveBeenCalledTimes(1);
    buffer.put(b('k5'), value);
    buffer.put(b('k6'), value);
    expect(onCommitRequested).toHaveBeenCalledTimes(1);

    await buffer.commit();
    expect(store.get(b('k6'))?.length).toBe(30);
    for (let i = 0; i < 4; i++) buffer.put(b(`again${i}`), value);
    expect(onCommitRequested).toHaveBeenCalledTimes(2);

    buffer.rollback();
    for (let i = 0; i < 4; i++) buffer.put(b(`third${i}`), value);
    expect(onCommitRequested).toHaveBeenCalledTimes(3);
  });

  it('shares one bound between buffers, asks each past it, and frees what commits and rollbacks drop', async () => {
    const [one, two] = [new InMemoryKeyValueStore('one'), new InMemoryKeyValueStore('two')];
    await Promise.all([one.open(), two.open()]);
    const budget = new UncommittedBytesBudget(2 * O + 100);
    const asked: string[] = [];
    const first = new TransactionalBuffer(one, { budget, onCommitRequested: () => asked.push('one') });
    const second = new TransactionalBuffer(two, { budget, onCommitRequested: () => asked.push('two') });
    const value = Buffer.alloc(40);
    first.put(b('a1'), value);
    second.put(b('b1'), value);
    expect([budget.bytes, asked]).toEqual([2 * O + 84, []]);
    // Each buffer alone is far under the bound; together they pass it.
    second.put(b('b2'), value);
    expect(asked).toEqual(['two']);
    first.put(b('a2'), value);
    expect(asked).toEqual(['two', 'one']);
    await first.commit();
    second.rollback();
    expect(budget.bytes).toBe(0);
    for (let i = 0; i < 3; i++) second.put(b(`c${i}`), value);
    expect(asked).toEqual(['two', 'one', 'two']);
  });

  it('rejects a bound that is not a positive number', () => {
    const store = new InMemoryKeyValueStore('s');
    expect(() => new TransactionalBuffer(store, { maxUncommittedBytes: 0 })).toThrow(
      InvalidStoreArgumentError,
    );
    expect(() => new TransactionalBuffer(store, { maxUncommittedBytes: Number.NaN })).toThrow(
      /maxUncommittedBytes/,
    );
  });
});

describe('TransactionalBuffer.approximateNumEntries during a commit', () => {
  it('does not count writes twice when a commit moves them into the store meanwhile', async () => {
    const store = new InMemoryKeyValueStore('s');
    await store.open();
    let release: (() => void) | undefined;
    const count = store.approximateNumEntries.bind(store);
    // The store's count waits until the test lets it go, so a commit can run in between.
    store.approximateNumEntries = async () => {
      await new Promise<void>((r) => {
        release = r;
      });
      return count();
    };
    const buffer = new TransactionalBuffer(store);
    for (let i = 0; i < 10; i++) buffer.put(b(`k${i}`), b('v'));
    const counting = buffer.approximateNumEntries();
    await vi.waitFor(() => expect(release).toBeDefined());
    await buffer.commit();
    // The first count saw 10 buffered writes and now sees 10 stored ones too; it must count again
    // (each count waits to be released).
    const n = await Promise.race([
      counting,
      (async () => {
        for (;;) {
          release?.();
          await new Promise((r) => setTimeout(r, 5));
        }
      })(),
    ]);
    expect(n).toBe(10);
    await store.close();
  });
});

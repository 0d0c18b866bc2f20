import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  InMemoryKeyValueStore,
  InvalidStoreArgumentError,
  type KeyValueBytesStore,
  LevelKeyValueStore,
  StoreNotOpenError,
} from '../src/index.ts';
import { b, entries, tempDir } from './helpers.ts';

interface StoreFactory {
  persistent: boolean;
  create(name: string): Promise<KeyValueBytesStore>;
  cleanup(): Promise<void>;
}

function inMemoryFactory(): StoreFactory {
  return {
    persistent: false,
    create: async (name) => new InMemoryKeyValueStore(name),
    cleanup: async () => {},
  };
}

function levelFactory(): StoreFactory {
  const removers: (() => Promise<void>)[] = [];
  return {
    persistent: true,
    create: async (name) => {
      const { dir, remove } = await tempDir();
      removers.push(remove);
      return new LevelKeyValueStore({ name, location: `${dir}/app/0_0/${name}` });
    },
    cleanup: async () => {
      await Promise.all(removers.splice(0).map((remove) => remove()));
    },
  };
}

// The same contract, run against every byte store implementation.
describe.each([
  { kind: 'InMemoryKeyValueStore', makeFactory: inMemoryFactory },
  { kind: 'LevelKeyValueStore', makeFactory: levelFactory },
])('KeyValueBytesStore contract: $kind', ({ makeFactory }) => {
  let factory: StoreFactory;
  let store: KeyValueBytesStore;

  beforeEach(async () => {
    factory = makeFactory();
    store = await factory.create('counts');
    await store.open();
  });

  afterEach(async () => {
    await store.close();
    await factory.cleanup();
  });

  it('reports its name and persistence', () => {
    expect(store.name).toBe('counts');
    expect(store.persistent).toBe(factory.persistent);
  });

  it('gets synchronously what was put, and undefined for absent keys', async () => {
    await store.put(b('k1'), b('v1'));
    const value = store.get(b('k1'));
    expect(value).toBeInstanceOf(Buffer);
    expect(value?.toString()).toBe('v1');
    expect(store.get(b('absent'))).toBeUndefined();
  });

  it('overwrites on put and removes on delete', async () => {
    await store.put(b('k'), b('old'));
    await store.put(b('k'), b('new'));
    expect(store.get(b('k'))?.toString()).toBe('new');
    await store.delete(b('k'));
    expect(store.get(b('k'))).toBeUndefined();
    await store.delete(b('never-there'));
    expect(await store.approximateNumEntries()).toBe(0);
  });

  it('stores empty values as values, distinct from absent keys', async () => {
    await store.put(b('empty'), Buffer.alloc(0));
    expect(store.get(b('empty'))?.length).toBe(0);
    expect(await entries(store.all())).toEqual(['empty=']);
  });

  it('putIfAbsent writes only absent keys and returns the existing value', async () => {
    expect(await store.putIfAbsent(b('k'), b('first'))).toBeUndefined();
    expect((await store.putIfAbsent(b('k'), b('second')))?.toString()).toBe('first');
    expect(store.get(b('k'))?.toString()).toBe('first');
  });

  it('keeps its own copy of written bytes', async () => {
    const key = b('k');
    const value = b('value');
    await store.put(key, value);
    value.fill(0);
    key.fill(0);
    expect(store.get(b('k'))?.toString()).toBe('value');
  });

  it('applies a writeBatch of puts and tombstones, later changes winning', async () => {
    await store.put(b('gone'), b('x'));
    await store.writeBatch([
      { key: b('a'), value: b('1') },
      { key: b('gone'), value: null },
      { key: b('a'), value: b('2') },
      { key: b('b'), value: b('3') },
    ]);
    expect(await entries(store.all())).toEqual(['a=2', 'b=3']);
  });

  it('rejects a whole writeBatch with a bad record, writing none of it', async () => {
    const bad = [
      { key: b('a'), value: b('1') },
      { key: b('b'), value: 'not bytes' as unknown as Buffer },
    ];
    await expect(store.writeBatch(bad)).rejects.toThrow(InvalidStoreArgumentError);
    expect(store.get(b('a'))).toBeUndefined();
  });

  it('iterates all() in unsigned byte order', async () => {
    const keys = [
      Buffer.from([0xff]),
      Buffer.from([0x00]),
      Buffer.from([0x7f, 0x01]),
      Buffer.from([0x80]),
      b('a'),
    ];
    for (const key of keys) await store.put(key, key);
    const seen: Buffer[] = [];
    for await (const { key, value } of store.all()) {
      expect(value.equals(key)).toBe(true);
      seen.push(key);
    }
    expect(seen).toEqual([...keys].sort(Buffer.compare));
  });

  it('ranges with inclusive bounds, and open bounds when undefined', async () => {
    for (const k of ['a', 'b', 'c', 'd', 'e']) await store.put(b(k), b(k.toUpperCase()));
    expect(await entries(store.range(b('b'), b('d')))).toEqual(['b=B', 'c=C', 'd=D']);
    expect(await entries(store.range(b('bb'), b('d0')))).toEqual(['c=C', 'd=D']);
    expect(await entries(store.range(undefined, b('b')))).toEqual(['a=A', 'b=B']);
    expect(await entries(store.range(b('d'), undefined))).toEqual(['d=D', 'e=E']);
    expect(await entries(store.range(b('x'), b('z')))).toEqual([]);
    expect(await entries(store.range(b('d'), b('b')))).toEqual([]);
  });

  it('keeps order across interleaved puts, deletes and range queries', async () => {
    const expected = new Map<string, string>();
    for (let round = 0; round < 5; round++) {
      for (let i = 0; i < 50; i++) {
        const k = `key-${(i * 37 + round * 11) % 97}`.padEnd(8, '_');
        if ((i + round) % 4 === 0) {
          await store.delete(b(k));
          expected.delete(k);
        } else {
          await store.put(b(k), b(`${round}`));
          expected.set(k, `${round}`);
        }
      }
      const want = [...expected.entries()].sort(([x], [y]) => (x < y ? -1 : 1)).map(([k, v]) => `${k}=${v}`);
      expect(await entries(store.all())).toEqual(want);
      expect(await store.approximateNumEntries()).toBe(expected.size);
    }
  });

  it('iterates in batches beyond one native fetch', async () => {
    const changes = Array.from({ length: 2500 }, (_, i) => ({
      key: b(`k${String(i).padStart(5, '0')}`),
      value: b(`${i}`),
    }));
    await store.writeBatch(changes);
    let count = 0;
    let previous: Buffer | undefined;
    for await (const { key } of store.all()) {
      if (previous) expect(Buffer.compare(previous, key)).toBeLessThan(0);
      previous = key;
      count++;
    }
    expect(count).toBe(2500);
    expect(await store.approximateNumEntries()).toBe(2500);
  });

  it('lets an iteration stop early', async () => {
    for (const k of ['a', 'b', 'c']) await store.put(b(k), b(k));
    const seen: string[] = [];
    for await (const { key } of store.all()) {
      seen.push(key.toString());
      if (seen.length === 2) break;
    }
    expect(seen).toEqual(['a', 'b']);
    await store.put(b('d'), b('d'));
    expect(store.get(b('d'))?.toString()).toBe('d');
  });

  it('rejects non-Buffer keys and values with a message that says what to pass', async () => {
    expect(() => store.get('k' as unknown as Buffer)).toThrow(/keys must be Buffers/);
    await expect(store.put(b('k'), null as unknown as Buffer)).rejects.toThrow(/call delete\(\)/);
    expect(() => store.range('a' as unknown as Buffer, undefined)).toThrow(InvalidStoreArgumentError);
  });

  it('flushes without losing data', async () => {
    await store.put(b('k'), b('v'));
    await store.flush();
    expect(store.get(b('k'))?.toString()).toBe('v');
  });

  it('closes idempotently and refuses use after close', async () => {
    await store.put(b('k'), b('v'));
    await store.close();
    await store.close();
    expect(() => store.get(b('k'))).toThrow(StoreNotOpenError);
    await expect(store.put(b('k'), b('v'))).rejects.toThrow(/call open\(\)/);
  });

  it('refuses use before open', async () => {
    const fresh = await factory.create('fresh');
    expect(() => fresh.get(b('k'))).toThrow(StoreNotOpenError);
    await fresh.close();
  });

  it('keeps data across close and reopen only when persistent', async () => {
    await store.put(b('k'), b('v'));
    await store.close();
    await store.open();
    expect(store.get(b('k'))?.toString()).toBe(factory.persistent ? 'v' : undefined);
  });
});

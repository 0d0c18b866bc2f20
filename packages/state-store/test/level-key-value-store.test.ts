import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidStoreArgumentError, LevelKeyValueStore, StoreLockedError } from '../src/index.ts';
import { b, entries, tempDir } from './helpers.ts';

describe('LevelKeyValueStore', () => {
  let dir: string;
  let remove: () => Promise<void>;
  const opened: LevelKeyValueStore[] = [];

  beforeEach(async () => {
    ({ dir, remove } = await tempDir());
  });

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close()));
    await remove();
  });

  function store(location: string, extra: Partial<ConstructorParameters<typeof LevelKeyValueStore>[0]> = {}) {
    const s = new LevelKeyValueStore({ name: 'counts', location, ...extra });
    opened.push(s);
    return s;
  }

  it('creates the database under the given location, nested directories included', async () => {
    const location = join(dir, 'word-count', '1_0', 'counts');
    await store(location).open();
    expect(await readdir(location)).toContain('CURRENT');
  });

  it('raises StoreLockedError naming the directory when the database is already open', async () => {
    const location = join(dir, 'app', '0_0', 'counts');
    await store(location).open();
    const second = store(location);
    const error = await second.open().then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(StoreLockedError);
    expect((error as StoreLockedError).location).toBe(location);
    expect((error as Error).message).toContain(location);
    expect((error as Error).message).toMatch(/another kstreams instance probably uses the same stateDir/i);
    expect(((error as Error).cause as { code?: string }).code).toBe('LEVEL_DATABASE_NOT_OPEN');
  });

  it('persists committed data across close and reopen', async () => {
    const location = join(dir, 'persist');
    const first = store(location);
    await first.open();
    await first.writeBatch([
      { key: b('a'), value: b('1') },
      { key: b('b'), value: b('2') },
    ]);
    await first.close();
    const second = store(location, { cacheSize: 1024 * 1024, writeBufferSize: 1024 * 1024 });
    await second.open();
    expect(await entries(second.all())).toEqual(['a=1', 'b=2']);
  });

  it('flushes unsynced writes when syncWrites is off', async () => {
    const location = join(dir, 'unsynced');
    const s = store(location, { syncWrites: false });
    await s.open();
    await s.put(b('a'), b('1'));
    await s.delete(b('a'));
    await s.writeBatch([{ key: b('b'), value: b('2') }]);
    await s.flush();
    // Replaying the newest write for durability must not change the contents.
    expect(await entries(s.all())).toEqual(['b=2']);
  });

  it('rejects bad options with a message naming the option', () => {
    expect(() => new LevelKeyValueStore({ name: 's', location: '' })).toThrow(/options.location/);
    expect(() => new LevelKeyValueStore({ name: '', location: dir })).toThrow(InvalidStoreArgumentError);
    expect(() => new LevelKeyValueStore({ name: 's', location: dir, cacheSize: -1 })).toThrow(
      /options.cacheSize/,
    );
    expect(() => new LevelKeyValueStore({ name: 's', location: dir, writeBufferSize: 1.5 })).toThrow(
      /options.writeBufferSize/,
    );
  });
});

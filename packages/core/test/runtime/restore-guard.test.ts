import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemoryKeyValueStore, type KeyValueBytesStore, LevelKeyValueStore } from '@kstreams/state-store';
import { describe, expect, it } from 'vitest';
import { staleCheckpoint, wipeStore } from '../../src/runtime/restore.ts';

describe('staleCheckpoint', () => {
  it('resumes from a checkpoint inside the changelog', () => {
    expect(staleCheckpoint(undefined, 40, 100)).toBeUndefined();
    expect(staleCheckpoint(40, 40, 100)).toBeUndefined();
    expect(staleCheckpoint(100, 40, 100)).toBeUndefined();
    expect(staleCheckpoint(0, 0, 0)).toBeUndefined();
  });

  it('wipes and restores from the log start when the checkpoint is below it', () => {
    expect(staleCheckpoint(39, 40, 100)).toMatchObject({
      restoreFrom: 40,
      reason: expect.stringContaining('log start'),
    });
  });

  it('wipes and restores from the beginning when the checkpoint is past the end', () => {
    expect(staleCheckpoint(101, 40, 100)).toMatchObject({
      restoreFrom: 0,
      reason: expect.stringContaining('recreated'),
    });
  });
});

async function fill(store: KeyValueBytesStore, n: number): Promise<void> {
  await store.open();
  await store.writeBatch(
    Array.from({ length: n }, (_, i) => ({ key: Buffer.from(`k${i}`), value: Buffer.from(`v${i}`) })),
  );
}

describe('wipeStore', () => {
  it('deletes every entry of a LevelDB store, in chunks', async () => {
    const store = new LevelKeyValueStore({
      name: 's',
      location: join(mkdtempSync(join(tmpdir(), 'wipe-')), 's'),
    });
    await fill(store, 2_500);
    expect(await wipeStore(store, 1_000)).toBe(2_500);
    expect(await store.approximateNumEntries()).toBe(0);
    expect(store.get(Buffer.from('k7'))).toBeUndefined();
    await store.close();
  });

  it('deletes every entry of an in-memory store', async () => {
    const store = new InMemoryKeyValueStore('m');
    await fill(store, 30);
    expect(await wipeStore(store, 7)).toBe(30);
    const left = [];
    for await (const e of store.all()) left.push(e);
    expect(left).toEqual([]);
  });
});

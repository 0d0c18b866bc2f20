import { describe, expect, it, vi } from 'vitest';
import {
  fromChangelogMessage,
  InMemoryKeyValueStore,
  InvalidChangelogRecordError,
  type StateRestoreListener,
  StoreRestoreError,
  StoreRestorer,
  TransactionalBuffer,
  toChangelogMessage,
} from '../src/index.ts';
import { b, entries } from './helpers.ts';

describe('changelog encoding', () => {
  it('maps store changes to Kafka messages and back, tombstones included', () => {
    const put = { key: b('k'), value: b('v') };
    const tombstone = { key: b('k'), value: null };
    expect(toChangelogMessage(put)).toEqual({ key: b('k'), value: b('v') });
    expect(toChangelogMessage(tombstone)).toEqual({ key: b('k'), value: null });
    expect(fromChangelogMessage(toChangelogMessage(put))).toEqual(put);
    expect(fromChangelogMessage(toChangelogMessage(tombstone))).toEqual(tombstone);
  });

  it('carries the buffer pending changes unchanged', async () => {
    const store = new InMemoryKeyValueStore('s');
    await store.open();
    const buffer = new TransactionalBuffer(store);
    buffer.put(b('a'), b('1'));
    buffer.delete(b('b'));
    const restored = buffer.pendingChanges().map(toChangelogMessage).map(fromChangelogMessage);
    expect(restored).toEqual([
      { key: b('a'), value: b('1') },
      { key: b('b'), value: null },
    ]);
  });

  it('throws a clear error on a null key', () => {
    expect(() => fromChangelogMessage({ key: null, value: b('v') })).toThrow(InvalidChangelogRecordError);
    expect(() => fromChangelogMessage({ key: null, value: null })).toThrow(/null key/);
  });

  it('rejects records that are not bytes', () => {
    expect(() => toChangelogMessage({ key: 'k' as unknown as Buffer, value: null })).toThrow(
      /key must be a Buffer/,
    );
    expect(() => toChangelogMessage({ key: b('k'), value: 7 as unknown as Buffer })).toThrow(
      /value must be a Buffer/,
    );
  });
});

describe('StoreRestorer', () => {
  const changelog = { topic: 'app-counts-changelog', partition: 2 };

  it('applies batches straight to the store and reports progress to the listener', async () => {
    const store = new InMemoryKeyValueStore('counts');
    await store.open();
    await store.put(b('stale'), b('x'));
    const calls: unknown[][] = [];
    const listener: StateRestoreListener = {
      onRestoreStart: (...args) => calls.push(['start', ...args]),
      onBatchRestored: (...args) => calls.push(['batch', ...args]),
      onRestoreEnd: (...args) => calls.push(['end', ...args]),
    };
    const restorer = new StoreRestorer(store, changelog, listener);
    restorer.start(10, 15);
    await restorer.restoreBatch(
      [
        { key: b('a'), value: b('1') },
        { key: b('b'), value: b('1') },
        { key: b('stale'), value: null },
      ],
      13,
    );
    await restorer.restoreBatch(
      [
        { key: b('a'), value: b('2') },
        { key: b('b'), value: null },
      ],
      15,
    );
    restorer.end();
    expect(restorer.totalRestored).toBe(5);
    expect(await entries(store.all())).toEqual(['a=2']);
    expect(calls).toEqual([
      ['start', 'counts', changelog, 10, 15],
      ['batch', 'counts', changelog, 13, 3],
      ['batch', 'counts', changelog, 15, 2],
      ['end', 'counts', changelog, 5],
    ]);
  });

  it('writes each batch atomically in one writeBatch', async () => {
    const store = new InMemoryKeyValueStore('counts');
    await store.open();
    const writeBatch = vi.spyOn(store, 'writeBatch');
    const restorer = new StoreRestorer(store, changelog);
    restorer.start(0, 2);
    await restorer.restoreBatch(
      [
        { key: b('a'), value: b('1') },
        { key: b('b'), value: b('2') },
      ],
      2,
    );
    await restorer.restoreBatch([], 2);
    restorer.end();
    expect(writeBatch).toHaveBeenCalledTimes(1);
    expect(restorer.totalRestored).toBe(2);
  });

  it('refuses calls out of order', async () => {
    const store = new InMemoryKeyValueStore('counts');
    await store.open();
    const restorer = new StoreRestorer(store, changelog);
    await expect(restorer.restoreBatch([], 0)).rejects.toThrow(StoreRestoreError);
    expect(() => restorer.end()).toThrow(/after start/);
    restorer.start(0, 0);
    expect(() => restorer.start(0, 0)).toThrow(/already started/);
    restorer.end();
    await expect(restorer.restoreBatch([], 0)).rejects.toThrow(/before end/);
  });
});

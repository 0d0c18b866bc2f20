import { inMemoryWindowBytesStore, TransactionalBuffer } from '@kstreams/state-store';
import { describe, expect, it } from 'vitest';
import { Serdes } from '../../src/serdes/serdes.ts';
import { TypedWindowStore } from '../../src/state/window-store.ts';

async function collect<T>(it: AsyncIterableIterator<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe('window store with retainDuplicates (a stream-stream join store)', () => {
  it('keeps every put of a key and timestamp, in put order, and ignores null puts', async () => {
    const bytes = inMemoryWindowBytesStore({ name: 'w', retentionMs: 100 });
    await bytes.open();
    const buffer = new TransactionalBuffer(bytes);
    const store = new TypedWindowStore('w', buffer, Serdes.String(), Serdes.String(), 10, true);
    store.put('k', 'a', 5);
    store.put('k', 'b', 5);
    store.put('k', null, 5);
    store.put('k', 'c', 7);
    store.put('other', 'x', 5);
    expect(await collect(store.fetch('k', 0, 10))).toEqual([
      { timestamp: 5, value: 'a' },
      { timestamp: 5, value: 'b' },
      { timestamp: 7, value: 'c' },
    ]);
    await buffer.commit();
    expect((await collect(store.fetch('k', 6, 10))).map((e) => e.value)).toEqual(['c']);
    await bytes.close();
  });

  it("hides entries past retention from fetches at once, before the commit, as Kafka Streams' store does", async () => {
    const bytes = inMemoryWindowBytesStore({ name: 'w', retentionMs: 20 });
    await bytes.open();
    const buffer = new TransactionalBuffer(bytes);
    const store = new TypedWindowStore('w', buffer, Serdes.String(), Serdes.String(), 10, true, 20);
    store.put('k', 'old', 5);
    store.put('k', 'mid', 16);
    expect((await collect(store.fetch('k', 0, 30))).map((e) => e.value)).toEqual(['old', 'mid']);
    // Stream time 25: only timestamps above 25 - 20 are live; a null put moves nothing.
    store.put('other', null, 100);
    store.put('other', 'x', 25);
    expect((await collect(store.fetch('k', 0, 30))).map((e) => e.value)).toEqual(['mid']);
    buffer.rollback();
    expect((await collect(store.fetch('k', 0, 30))).map((e) => e.value)).toEqual([]);
    store.put('k', 'old', 5);
    await buffer.commit();
    expect((await collect(store.fetch('k', 0, 30))).map((e) => e.value)).toEqual(['old']);
    await bytes.close();
  });
});

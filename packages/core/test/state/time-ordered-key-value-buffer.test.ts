// The suppression buffer store on its own: eviction order, Kafka Streams' size estimate (what
// maxBytes bounds), its changelog bytes (Kafka Streams' v3 format) and the restore from them, and
// the time index rebuilt after a rollback.
import { InMemoryKeyValueStore, TransactionalBuffer } from '@kstreams/state-store';
import { describe, expect, it } from 'vitest';
import { Serdes } from '../../src/serdes/serdes.ts';
import { decodeBufferValue, encodeBufferValue } from '../../src/state/buffer-value.ts';
import { TimeOrderedKeyValueBuffer } from '../../src/state/time-ordered-key-value-buffer.ts';

const S = Serdes.String();
const context = (timestamp: number) => ({ timestamp, offset: 7, topic: 'in', partition: 0, headers: {} });

async function newBuffer(store = new InMemoryKeyValueStore('buf')) {
  await store.open();
  const tx = new TransactionalBuffer(store);
  const buffer = new TimeOrderedKeyValueBuffer<string, string>('buf', tx, S, S);
  await buffer.load();
  return { store, tx, buffer };
}

function drain(buffer: TimeOrderedKeyValueBuffer<string, string>) {
  const out: [string, string | null, string | null, number][] = [];
  buffer.evictWhile(
    () => true,
    (e) => out.push([e.key, e.value.newValue, e.value.oldValue, e.context.timestamp]),
  );
  return out;
}

describe('TimeOrderedKeyValueBuffer', () => {
  it('evicts by buffer time, then key bytes; an updated key keeps the time of its first update', async () => {
    const { buffer } = await newBuffer();
    buffer.put(20, 'b', { newValue: 'b1', oldValue: null }, context(1));
    buffer.put(10, 'z', { newValue: 'z1', oldValue: null }, context(2));
    buffer.put(20, 'a', { newValue: 'a1', oldValue: null }, context(3));
    buffer.put(5, 'b', { newValue: 'b2', oldValue: 'b1' }, context(4));
    expect(buffer.numRecords()).toBe(3);
    expect(buffer.minTimestamp()).toBe(10);
    expect(drain(buffer)).toEqual([
      ['z', 'z1', null, 2],
      ['a', 'a1', null, 3],
      ['b', 'b2', 'b1', 4],
    ]);
    expect(buffer.numRecords()).toBe(0);
    expect(buffer.bufferSize()).toBe(0);
    expect(buffer.minTimestamp()).toBe(Number.POSITIVE_INFINITY);
  });

  it("bounds: the stop condition is checked before each eviction; sizes are Kafka Streams' estimate", async () => {
    const { buffer } = await newBuffer();
    buffer.put(1, 'k', { newValue: 'v', oldValue: null }, context(1));
    // 8 (buffer time) + 1 (key) + 1 (new value) + 8 + 8 + 2 ("in") + 4 (record context).
    expect(buffer.bufferSize()).toBe(32);
    // The prior value (null) differs from the old value ('v'), so both count.
    buffer.put(1, 'k', { newValue: 'ww', oldValue: 'v' }, context(2));
    expect(buffer.bufferSize()).toBe(32 + 1 + 1);
    buffer.put(2, 'm', { newValue: 'x', oldValue: null }, { ...context(3), headers: { h: 'abc' } });
    expect(buffer.bufferSize()).toBe(34 + 32 + 1 + 3);
    const evicted: string[] = [];
    buffer.evictWhile(
      () => buffer.numRecords() > 1,
      (e) => evicted.push(e.key),
    );
    expect(evicted).toEqual(['k']);
    expect(buffer.bufferSize()).toBe(36);
  });

  it("keeps entries in Kafka Streams' v3 changelog format and restores them from it", async () => {
    const { tx, buffer } = await newBuffer();
    buffer.put(30, 'late', { newValue: 'n', oldValue: 'o' }, { ...context(9), headers: { trace: 'x' } });
    buffer.put(10, 'early', { newValue: 'e', oldValue: null }, context(8));
    buffer.put(10, 'early', { newValue: 'e2', oldValue: 'e' }, context(11));
    const changelog = tx.pendingChanges();
    expect(changelog.map((c) => c.key.toString())).toEqual(['late', 'early']);
    const early = changelog[1]!.value!;
    // record context: timestamp 11, offset 7, topic "in", partition 0, no headers; then the prior
    // value (null: -1), the old value ("e"), the new value ("e2"), the buffer time (10).
    expect(early.toString('hex')).toBe(
      [
        '000000000000000b',
        '0000000000000007',
        '00000002',
        Buffer.from('in').toString('hex'),
        '00000000',
        '00000000',
        'ffffffff',
        '00000001',
        Buffer.from('e').toString('hex'),
        '00000002',
        Buffer.from('e2').toString('hex'),
        '000000000000000a',
      ].join(''),
    );
    expect(decodeBufferValue(encodeBufferValue(decodeBufferValue(early).value, 10))).toEqual(
      decodeBufferValue(early),
    );
    // A restore writes the changelog records straight into a new task's bytes store.
    const restored = new InMemoryKeyValueStore('buf');
    await restored.open();
    await restored.writeBatch(changelog);
    const { buffer: again } = await newBuffer(restored);
    expect(again.bufferSize()).toBe(buffer.bufferSize());
    expect(drain(again)).toEqual([
      ['early', 'e2', 'e', 11],
      ['late', 'n', 'o', 9],
    ]);
  });

  it('after a rollback, needs a load, which brings back the committed entries', async () => {
    const { tx, buffer } = await newBuffer();
    buffer.put(1, 'kept', { newValue: 'v', oldValue: null }, context(1));
    await tx.commit();
    buffer.evictWhile(
      () => true,
      () => {},
    );
    buffer.put(2, 'dropped', { newValue: 'w', oldValue: null }, context(2));
    tx.rollback();
    expect(buffer.needsLoad).toBe(true);
    expect(() => buffer.put(3, 'x', { newValue: 'x', oldValue: null }, context(3))).toThrow(/load\(\)/);
    await buffer.load();
    expect(drain(buffer)).toEqual([['kept', 'v', null, 1]]);
  });
});

import { beforeEach, describe, expect, it } from 'vitest';
import {
  InMemoryKeyValueStore,
  InvalidStoreArgumentError,
  type KeyValueStore,
  type StoreSerde,
  TransactionalBuffer,
  TypedKeyValueStore,
} from '../src/index.ts';

const stringSerde: StoreSerde<string> = {
  serialize: (data) => Buffer.from(data, 'utf8'),
  deserialize: (data) => data.toString('utf8'),
};

// Big-endian so that byte order is numeric order for non-negative counts.
const uint32Serde: StoreSerde<number> = {
  serialize: (data) => {
    const bytes = Buffer.alloc(4);
    bytes.writeUInt32BE(data);
    return bytes;
  },
  deserialize: (data) => data.readUInt32BE(0),
};

async function collect<K, V>(iterator: AsyncIterable<{ key: K; value: V }>): Promise<[K, V][]> {
  const out: [K, V][] = [];
  for await (const { key, value } of iterator) out.push([key, value]);
  return out;
}

describe('TypedKeyValueStore', () => {
  let bytes: InMemoryKeyValueStore;
  let buffer: TransactionalBuffer;
  let counts: KeyValueStore<string, number>;

  beforeEach(async () => {
    bytes = new InMemoryKeyValueStore('counts');
    await bytes.open();
    buffer = new TransactionalBuffer(bytes);
    counts = new TypedKeyValueStore('counts', buffer, stringSerde, uint32Serde);
  });

  it('serializes through the buffer and deserializes on read', async () => {
    counts.put('kafka', 3);
    expect(counts.name).toBe('counts');
    expect(counts.get('kafka')).toBe(3);
    expect(buffer.get(Buffer.from('kafka'))).toEqual(Buffer.from([0, 0, 0, 3]));
    expect(bytes.get(Buffer.from('kafka'))).toBeUndefined();
    await buffer.commit();
    expect(bytes.get(Buffer.from('kafka'))).toEqual(Buffer.from([0, 0, 0, 3]));
  });

  it('serializes a string key once for a read and the write after it, an object key every time', () => {
    const serialized: unknown[] = [];
    const counting: StoreSerde<unknown> = {
      serialize: (data) => {
        serialized.push(data);
        return Buffer.from(JSON.stringify(data));
      },
      deserialize: (data) => JSON.parse(data.toString()),
    };
    const store = new TypedKeyValueStore<unknown, number>('any', buffer, counting, uint32Serde);
    for (const word of ['a', 'b', 'a', 'a']) store.put(word, (store.get(word) ?? 0) + 1);
    expect(serialized).toEqual(['a', 'b', 'a']);
    expect([store.get('a'), store.get('b')]).toEqual([3, 1]);
    // An object may change between a read and a write: serialized each time, by its contents.
    const key = { id: 1 };
    serialized.length = 0;
    store.put(key, 5);
    key.id = 2;
    expect(store.get(key)).toBeUndefined();
    store.put(key, 6);
    expect([store.get({ id: 1 }), store.get({ id: 2 })]).toEqual([5, 6]);
    expect(serialized).toHaveLength(5);
  });

  it('putIfAbsent and delete return typed previous values', () => {
    expect(counts.putIfAbsent('a', 1)).toBeUndefined();
    expect(counts.putIfAbsent('a', 2)).toBe(1);
    expect(counts.delete('a')).toBe(1);
    expect(counts.delete('a')).toBeUndefined();
    expect(counts.get('a')).toBeUndefined();
  });

  it('treats put(key, null) as a delete, as Kafka Streams does', () => {
    counts.put('a', 1);
    counts.put('a', null as unknown as number);
    expect(counts.get('a')).toBeUndefined();
    expect(buffer.pendingChanges()).toEqual([{ key: Buffer.from('a'), value: null }]);
  });

  it('rejects null keys with a clear error', () => {
    expect(() => counts.put(null as unknown as string, 1)).toThrow(InvalidStoreArgumentError);
    expect(() => counts.get(undefined as unknown as string)).toThrow(/keys must not be null/);
  });

  it('ranges in the byte order of the serialized keys', async () => {
    const byNumber = new TypedKeyValueStore('by-number', buffer, uint32Serde, stringSerde);
    for (const n of [300, 2, 70_000, 1]) byNumber.put(n, `n${n}`);
    await buffer.commit();
    byNumber.put(5, 'n5');
    byNumber.delete(300);
    expect(await collect(byNumber.all())).toEqual([
      [1, 'n1'],
      [2, 'n2'],
      [5, 'n5'],
      [70_000, 'n70000'],
    ]);
    expect(await collect(byNumber.range(2, 300))).toEqual([
      [2, 'n2'],
      [5, 'n5'],
    ]);
    expect(await collect(byNumber.range(undefined, 1))).toEqual([[1, 'n1']]);
    expect(await byNumber.approximateNumEntries()).toBe(4);
  });

  it('withValueSerde() reads and writes the same buffer through a serde built from its own', async () => {
    const plain = new TypedKeyValueStore('counts', buffer, stringSerde, uint32Serde);
    // A view that keeps a one-byte tag in front of each value, as a timestamped store keeps its time.
    const tagged = plain.withValueSerde((inner) => ({
      serialize: (v: { tag: number; n: number }) => Buffer.concat([Buffer.of(v.tag), inner.serialize(v.n)]),
      deserialize: (data: Buffer) => ({ tag: data[0]!, n: inner.deserialize(data.subarray(1)) }),
    }));
    tagged.put('a', { tag: 7, n: 3 });
    expect(tagged.name).toBe('counts');
    expect(tagged.get('a')).toEqual({ tag: 7, n: 3 });
    expect(buffer.get(Buffer.from('a'))).toEqual(Buffer.from([7, 0, 0, 0, 3]));
    plain.delete('a');
    expect(tagged.get('a')).toBeUndefined();
  });
});

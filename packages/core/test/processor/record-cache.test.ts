import { InMemoryKeyValueStore, type KeyValueStore } from '@kstreams/state-store';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { StreamsBuilder } from '../../src/kstream/index.ts';
import { PendingWork } from '../../src/processor/internals/pending-work.ts';
import type { InputRecord, OutputRecord } from '../../src/processor/internals/records.ts';
import { StreamTask } from '../../src/processor/internals/stream-task.ts';
import { TaskCaches } from '../../src/processor/internals/task-caches.ts';
import type { Topology } from '../../src/processor/topology.ts';
import { Serdes } from '../../src/serdes/serdes.ts';
import {
  CACHE_ENTRY_OVERHEAD_BYTES,
  type DirtyEntry,
  ThreadCache,
} from '../../src/state/internals/thread-cache.ts';
import { timestampedView, type ValueAndTimestamp } from '../../src/state/value-and-timestamp.ts';

const silent = pino({ level: 'silent' });

describe('ThreadCache and NamedCache', () => {
  it('keeps dirty keys in the order of their last update, with their first update', () => {
    const flushed: DirtyEntry<string>[][] = [];
    const cache = new ThreadCache(10_000).namedCache<string>((entries) => flushed.push(entries));
    cache.put('a', 10, 'a1');
    cache.put('d', 10, 'd1');
    cache.put('a', 10, 'a2');
    cache.put('a', 10, 'a3');
    cache.flush();
    expect(flushed).toHaveLength(1);
    expect(flushed[0]!.map(({ first, latest }) => [first, latest])).toEqual([
      ['d1', 'd1'],
      ['a1', 'a3'],
    ]);
    cache.flush();
    expect(flushed).toHaveLength(1);
  });

  it('flushes the cache being written once all caches together pass the bound; clear gives the bytes back', () => {
    const entry = 20 + CACHE_ENTRY_OVERHEAD_BYTES;
    const threadCache = new ThreadCache(3 * entry);
    const flushedA: string[] = [];
    const flushedB: string[] = [];
    const a = threadCache.namedCache<string>((es) => flushedA.push(...es.map((e) => e.latest)));
    const b = threadCache.namedCache<string>((es) => flushedB.push(...es.map((e) => e.latest)));
    a.put('x', 20, 'x');
    a.put('y', 20, 'y');
    b.put('z', 20, 'z');
    expect(threadCache.sizeBytes).toBe(3 * entry);
    expect(flushedA).toEqual([]);
    b.put('w', 20, 'w');
    // Kafka Streams evicts from the cache being put into: b, not the older a.
    expect(flushedB).toEqual(['z', 'w']);
    expect(flushedA).toEqual([]);
    expect(threadCache.sizeBytes).toBe(2 * entry);
    a.clear();
    expect(threadCache.sizeBytes).toBe(0);
    expect(flushedA).toEqual([]);
  });

  it('rejects a negative bound with the setting named', () => {
    expect(() => new ThreadCache(-1)).toThrow(/statestoreCacheMaxBytes/);
  });
});

function countTask(sent: OutputRecord[], cacheBytes: number): StreamTask {
  const builder = new StreamsBuilder();
  builder
    .stream<string, string>('words', { keySerde: Serdes.String(), valueSerde: Serdes.String() })
    .groupByKey()
    .count({ storeName: 'counts' })
    .toStream()
    .to('counts-out', { keySerde: Serdes.String(), valueSerde: Serdes.Long() });
  return new StreamTask({
    id: { subtopology: 0, partition: 0 },
    applicationId: 'app',
    topology: builder.build(),
    collector: { send: (r) => sent.push(r) },
    storeFactory: (name) => new InMemoryKeyValueStore(name),
    defaultKeySerde: Serdes.String() as never,
    defaultValueSerde: Serdes.String() as never,
    threadCache: new ThreadCache(cacheBytes),
    logger: silent,
  });
}

const word = (offset: number, key: string, timestamp = offset) => ({
  topic: 'words',
  partition: 0,
  offset,
  key: Buffer.from(key),
  value: Buffer.from('v'),
  timestamp,
});

const counts = (sent: OutputRecord[]) =>
  sent.map((r) => [r.key?.toString(), Number(r.value?.readBigInt64BE(0)), r.timestamp]);

describe('a cached aggregation in a task', () => {
  it('forwards each key once per commit with its latest count and timestamp; reads see every update', async () => {
    const sent: OutputRecord[] = [];
    const task = countTask(sent, 1024 * 1024);
    await task.initializeStores();
    await task.initializeTopology();
    for (const [offset, key, ts] of [
      [0, 'a', 5],
      [1, 'b', 3],
      [2, 'a', 4],
      [3, 'a', 9],
    ] as const)
      await task.process(word(offset, key, ts));
    expect(sent).toEqual([]);
    // Interactive queries and processors read the store, which has every update already.
    const store = timestampedView(task.store('counts') as never) as KeyValueStore<
      string,
      ValueAndTimestamp<number>
    >;
    expect(store.get('a')).toEqual({ value: 3, timestamp: 9 });
    await task.prepareCommit();
    expect(counts(sent)).toEqual([
      ['b', 1, 3],
      ['a', 3, 9],
    ]);
    expect(
      task
        .changelogRecords()
        .map((c) => c.key.toString())
        .sort(),
    ).toEqual(['a', 'b']);
    await task.postCommit([]);
    await task.prepareCommit();
    expect(sent).toHaveLength(2);
  });

  it('drops what a rollback drops (exactly_once aborts the transaction); later flushes start from the committed state', async () => {
    const sent: OutputRecord[] = [];
    const task = countTask(sent, 1024 * 1024);
    await task.initializeStores();
    await task.initializeTopology();
    await task.process(word(0, 'a'));
    await task.prepareCommit();
    await task.postCommit([]);
    await task.process(word(1, 'a'));
    await task.process(word(2, 'b'));
    task.rollback();
    await task.prepareCommit();
    expect(counts(sent)).toEqual([['a', 1, 0]]);
    await task.process(word(1, 'a'));
    await task.prepareCommit();
    expect(counts(sent)).toEqual([
      ['a', 1, 0],
      ['a', 2, 1],
    ]);
  });

  it('with statestoreCacheMaxBytes 0, forwards every update at once', async () => {
    const sent: OutputRecord[] = [];
    const task = countTask(sent, 0);
    await task.initializeStores();
    await task.initializeTopology();
    await task.process(word(0, 'a'));
    await task.process(word(1, 'a'));
    expect(counts(sent)).toEqual([
      ['a', 1, 0],
      ['a', 2, 1],
    ]);
  });

  it('flushes early when the cache is full: more records, each key still in order', async () => {
    const sent: OutputRecord[] = [];
    // Room for three entries (a one-byte key, a count with its timestamp: 17 bytes): the fourth
    // distinct key flushes the store's cache.
    const task = countTask(sent, 3 * (CACHE_ENTRY_OVERHEAD_BYTES + 17));
    await task.initializeStores();
    await task.initializeTopology();
    const keys = ['a', 'b', 'a', 'c', 'a', 'd', 'b'];
    for (const [i, key] of keys.entries()) await task.process(word(i, key));
    await task.prepareCommit();
    const forwarded = counts(sent);
    expect(forwarded.map(([k]) => k)).toEqual(['b', 'c', 'a', 'd', 'b']);
    for (const key of ['a', 'b', 'c', 'd']) {
      const seen = forwarded.filter(([k]) => k === key).map(([, n]) => n as number);
      expect(seen, key).toEqual([...seen].sort((x, y) => x - y));
      expect(seen.at(-1), key).toBe(keys.filter((k) => k === key).length);
    }
  });
});

describe("a cached entry's record context", () => {
  it('is the input record without its key and value bytes, one per input record', async () => {
    let current: InputRecord | undefined;
    const slot = { get: () => current, set: (r: InputRecord | undefined) => (current = r) };
    const topology = { internalBuilder: { cachingEnabled: () => true } } as unknown as Topology;
    const caches = new TaskCaches(new ThreadCache(1024 * 1024), '0_0', topology, new PendingWork(), slot);
    const contexts: Array<InputRecord | undefined> = [];
    const cache = caches.create<string>('counts', () => contexts.push(slot.get()))!;
    const input: InputRecord = { ...word(7, 'a', 70), headers: { trace: 'x' } };
    current = input;
    cache.put('a', 10, 'a1');
    cache.put('b', 10, 'b1');
    current = undefined;
    await caches.flush();
    expect(contexts).toHaveLength(2);
    // The key and value are views of a whole fetch response, which an entry must not keep.
    expect(contexts[0]).toEqual({ ...input, key: null, value: null });
    expect(contexts[1]).toBe(contexts[0]);
    expect(input.key?.toString()).toBe('a');
    expect(current).toBeUndefined();
  });

  it('gives the operators of one store one cache: a cogroup forwards a key once, with its latest update', async () => {
    const slot = { get: () => undefined, set: () => {} };
    const topology = { internalBuilder: { cachingEnabled: () => true } } as unknown as Topology;
    const caches = new TaskCaches(new ThreadCache(1024 * 1024), '0_0', topology, new PendingWork(), slot);
    const forwarded: Array<[string, string, string]> = [];
    // Two aggregate processors of a cogroup, writing the one store "tags".
    const first = caches.create<string>('tags', (a, b) => forwarded.push(['first', a, b]))!;
    const second = caches.create<string>('tags', (a, b) => forwarded.push(['second', a, b]))!;
    first.put('k', 10, 'a1');
    second.put('k', 10, 'b2');
    first.put('k', 10, 'a3');
    await caches.flush();
    // One entry: the first update and the latest (through either processor), by the last listener.
    expect(forwarded).toEqual([['second', 'a1', 'a3']]);
  });
});

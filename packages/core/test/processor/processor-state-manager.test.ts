import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ENTRY_OVERHEAD_BYTES,
  InMemoryKeyValueStore,
  type KeyValueStore,
  readCheckpoint,
  type TransactionalBuffer,
  type TypedKeyValueStore,
} from '@kstreams/state-store';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, StreamsError } from '../../src/errors.ts';
import {
  ProcessorStateManager,
  type ProcessorStateManagerOptions,
} from '../../src/processor/internals/processor-state-manager.ts';
import { Serdes } from '../../src/serdes/serdes.ts';
import type { StateStore } from '../../src/state/state-store.ts';
import { type StoreBuilder, Stores, timestampedKeyValueStoreBuilder } from '../../src/state/store-builder.ts';
import { timestampedView } from '../../src/state/value-and-timestamp.ts';

describe('ProcessorStateManager', () => {
  let dir: string;
  let bytesStores: Map<string, InMemoryKeyValueStore>;
  let commitRequests: number;
  let options: ProcessorStateManagerOptions;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kstreams-state-manager-'));
    bytesStores = new Map();
    commitRequests = 0;
    options = {
      taskId: '1_2',
      applicationId: 'app',
      partition: 2,
      storeFactory: (name, taskId) => {
        const store = new InMemoryKeyValueStore(`${taskId}/${name}`);
        bytesStores.set(name, store);
        return store;
      },
      checkpointFile: join(dir, '.checkpoint'),
      onCommitRequested: () => {
        commitRequests++;
      },
    };
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function managerWithCounts(extra: Partial<ProcessorStateManagerOptions> = {}) {
    const manager = new ProcessorStateManager({ ...options, ...extra });
    manager.register(Stores.keyValueStoreBuilder('counts', Serdes.String(), Serdes.Long()));
    manager.register(
      Stores.keyValueStoreBuilder('scratch', Serdes.String(), Serdes.String()).withLoggingDisabled(),
    );
    expect(await manager.initialize()).toEqual([]);
    const counts = manager.store('counts') as KeyValueStore<string, number>;
    const scratch = manager.store('scratch') as KeyValueStore<string, string>;
    return { manager, counts, scratch };
  }

  it('names a changelog partition for each logged store, at the task partition', () => {
    const manager = new ProcessorStateManager(options);
    manager.register(Stores.keyValueStoreBuilder('counts', Serdes.String(), Serdes.Long()));
    manager.register(
      Stores.keyValueStoreBuilder('scratch', Serdes.String(), Serdes.Long()).withLoggingDisabled(),
    );
    expect(manager.changelogPartitions).toEqual([
      { topic: 'app-counts-changelog', partition: 2, storeName: 'counts' },
    ]);
    expect(manager.storeNames).toEqual(['counts', 'scratch']);
  });

  it('resolves serdes at registration: the default, or a ConfigError naming the store', () => {
    const manager = new ProcessorStateManager({ ...options, defaultKeySerde: Serdes.String() as never });
    expect(() => manager.register(Stores.keyValueStoreBuilder('no-value-serde'))).toThrow(ConfigError);
    expect(() => manager.register(Stores.keyValueStoreBuilder('no-value-serde'))).toThrow(
      /value serde for state store 'no-value-serde'/,
    );
  });

  it("logs a timestamped store in Kafka Streams' format and restores its timestamps", async () => {
    const manager = new ProcessorStateManager(options);
    manager.register(timestampedKeyValueStoreBuilder('agg', Serdes.String(), Serdes.Long()));
    await manager.initialize();
    const store = manager.store('agg') as TypedKeyValueStore<string, number>;
    timestampedView(store).put('a', { value: 7, timestamp: 1_700_000_000_123 });
    store.delete('gone');
    // What processors see through getStateStore: the plain value.
    expect(store.get('a')).toBe(7);

    // The changelog: the plain 8-byte value, the aggregate's timestamp as the record's; a tombstone
    // leaves the timestamp to the commit.
    const [put, tombstone] = manager.changelogRecords();
    expect(put).toMatchObject({ key: Buffer.from('a'), timestamp: 1_700_000_000_123 });
    expect(put!.value!.toString('hex')).toBe('0000000000000007');
    expect(tombstone).toMatchObject({ key: Buffer.from('gone'), value: null });
    expect(tombstone!.timestamp).toBeUndefined();

    // A restore of that record gives back the same stored bytes, timestamp included.
    const restored = manager.restoreConverter('agg')({
      key: put!.key,
      value: put!.value,
      timestamp: put!.timestamp!,
    });
    await manager.commit([]);
    expect(restored.value).toEqual(bytesStores.get('agg')!.get(Buffer.from('a')));
    expect(manager.restoreConverter('agg')({ key: put!.key, value: null, timestamp: 5 }).value).toBeNull();
  });

  it("restores a plain store's changelog records unchanged", () => {
    const manager = new ProcessorStateManager(options);
    manager.register(Stores.keyValueStoreBuilder('counts', Serdes.String(), Serdes.Long()));
    const message = { key: Buffer.from('k'), value: Buffer.from('v'), timestamp: 3 };
    expect(manager.restoreConverter('counts')(message)).toBe(message);
  });

  it('buffers writes until commit, with changelog records for the logged stores', async () => {
    const { manager, counts, scratch } = await managerWithCounts();
    counts.put('a', 1);
    counts.put('a', 2);
    counts.put('b', 1);
    scratch.put('x', 'y');
    expect(counts.get('a')).toBe(2);
    expect(bytesStores.get('counts')!.get(Buffer.from('a'))).toBeUndefined();
    expect(
      manager
        .changelogRecords()
        .map((c) => [c.topic, c.partition, c.key.toString(), c.value?.readBigInt64BE(0)]),
    ).toEqual([
      ['app-counts-changelog', 2, 'a', 2n],
      ['app-counts-changelog', 2, 'b', 1n],
    ]);

    await manager.commit([{ topic: 'app-counts-changelog', partition: 2, offset: 2 }]);
    expect(bytesStores.get('counts')!.get(Buffer.from('a'))?.readBigInt64BE(0)).toBe(2n);
    expect(bytesStores.get('scratch')!.get(Buffer.from('x'))?.toString()).toBe('y');
    expect(manager.bytesStore('counts')).toBe(bytesStores.get('counts'));
    expect(manager.changelogRecords()).toEqual([]);
    expect(await readCheckpoint(options.checkpointFile!)).toEqual([
      { topic: 'app-counts-changelog', partition: 2, offset: 2 },
    ]);
    await manager.close();
  });

  it('rollback drops the buffered writes and their changelog records', async () => {
    const { manager, counts } = await managerWithCounts();
    counts.put('a', 1);
    await manager.commit([]);
    counts.put('a', 5);
    counts.delete('a');
    manager.rollback();
    expect(counts.get('a')).toBe(1);
    expect(manager.changelogRecords()).toEqual([]);
    await manager.commit([]);
    expect(bytesStores.get('counts')!.get(Buffer.from('a'))?.readBigInt64BE(0)).toBe(1n);
    await manager.close();
  });

  it('writes a tombstone to the changelog for a delete', async () => {
    const { manager, counts } = await managerWithCounts();
    counts.put('a', 1);
    await manager.commit([]);
    counts.delete('a');
    expect(manager.changelogRecords().map((c) => [c.key.toString(), c.value])).toEqual([['a', null]]);
    await manager.close();
  });

  it('reads the checkpoint at initialize and merges later changelog offsets into it', async () => {
    const first = await managerWithCounts();
    await first.manager.commit([
      { topic: 'app-counts-changelog', partition: 2, offset: 7 },
      { topic: 'elsewhere', partition: 2, offset: 3 },
    ]);
    await first.manager.close();

    const second = new ProcessorStateManager(options);
    second.register(Stores.keyValueStoreBuilder('counts', Serdes.String(), Serdes.Long()));
    expect(await second.initialize()).toEqual([
      { topic: 'app-counts-changelog', partition: 2, offset: 7 },
      { topic: 'elsewhere', partition: 2, offset: 3 },
    ]);
    await second.commit([{ topic: 'app-counts-changelog', partition: 2, offset: 9 }]);
    expect(await readCheckpoint(options.checkpointFile!)).toEqual([
      { topic: 'app-counts-changelog', partition: 2, offset: 9 },
      { topic: 'elsewhere', partition: 2, offset: 3 },
    ]);
    await second.close();
  });

  it('asks for a commit when a buffer passes maxUncommittedBytes', async () => {
    const { manager, counts } = await managerWithCounts({ maxUncommittedBytes: ENTRY_OVERHEAD_BYTES + 20 });
    counts.put('short', 1);
    expect(commitRequests).toBe(0);
    counts.put('a-rather-long-key-past-the-limit', 1);
    expect(commitRequests).toBe(1);
    await manager.close();
  });

  it('builds each store through its StoreBuilder, so a new store kind needs no change here', async () => {
    const built: string[] = [];
    class CountingView implements StateStore {
      constructor(
        readonly name: string,
        readonly buffer: TransactionalBuffer,
      ) {}
    }
    const custom: StoreBuilder<string, string> = {
      ...Stores.keyValueStoreBuilder('custom', Serdes.String(), Serdes.String()),
      type: 'key-value',
      name: 'custom',
      keySerde: Serdes.String(),
      valueSerde: Serdes.String(),
      loggingEnabled: true,
      withLoggingEnabled: () => custom,
      withLoggingDisabled: () => custom,
      build(buffer) {
        built.push('custom');
        return new CountingView('custom', buffer);
      },
    };
    const manager = new ProcessorStateManager(options);
    manager.register(custom);
    expect(() => manager.store('custom')).toThrow(/not initialized yet/);
    await manager.initialize();
    expect(built).toEqual(['custom']);
    expect(manager.store('custom')).toBeInstanceOf(CountingView);
    expect(() => manager.store('missing')).toThrow(StreamsError);
    await manager.close();
  });

  it('close drops the buffers and closes every bytes store', async () => {
    const { manager, counts } = await managerWithCounts();
    counts.put('a', 1);
    expect(await manager.close()).toBeUndefined();
    expect(() => bytesStores.get('counts')!.get(Buffer.from('a'))).toThrow();
    expect(() => bytesStores.get('scratch')!.get(Buffer.from('a'))).toThrow();
  });

  it('refuses a second initialize', async () => {
    const { manager } = await managerWithCounts();
    await expect(manager.initialize()).rejects.toThrow(/already initialized/);
    await manager.close();
  });
});

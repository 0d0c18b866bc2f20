import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readCheckpoint } from '@kstreams/state-store';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decodeSubscriptionInfo, encodeSubscriptionInfo } from '../../src/kafka/subscription-info.ts';
import { StreamTask } from '../../src/processor/internals/stream-task.ts';
import { Topology } from '../../src/processor/topology.ts';
import { restoreStart } from '../../src/runtime/restore.ts';
import { CHECKPOINT_RECORDS_THRESHOLD, StandbyTask } from '../../src/runtime/standby-task.ts';
import { taskDirectory } from '../../src/runtime/state-directory.ts';
import { Serdes } from '../../src/serdes/serdes.ts';
import { levelBytesStores } from '../../src/state/bytes-stores.ts';
import { Stores } from '../../src/state/index.ts';

const silent = pino({ level: 'silent' });
const CHANGELOG = 'app-counts-changelog';

function countingTopology(): Topology {
  return new Topology()
    .addSource('src', 'words', { keySerde: Serdes.String(), valueSerde: Serdes.String() })
    .addProcessor('count', () => ({ process() {} }), 'src')
    .addStateStore(Stores.keyValueStoreBuilder('counts', Serdes.String(), Serdes.Long()), 'count')
    .addSink('out', 'counts-out', { keySerde: Serdes.String(), valueSerde: Serdes.Long() }, 'count');
}

const long = (n: number) => {
  const b = Buffer.alloc(8);
  b.writeBigInt64BE(BigInt(n));
  return b;
};
/** Changelog records `key-i -> i` for i in [from, to). */
const records = (from: number, to: number) =>
  Array.from({ length: to - from }, (_, k) => ({
    key: Buffer.from(`key-${(from + k) % 50}`),
    value: long(from + k),
    timestamp: 1_000 + from + k,
  }));

describe('StandbyTask', () => {
  let stateDir: string;
  const config = () => ({ applicationId: 'app', stateDir });
  const standby = () =>
    new StandbyTask('0_2', { config: config(), topology: countingTopology(), logger: silent });

  beforeEach(async () => {
    stateDir = await mkdtemp(join(tmpdir(), 'kstreams-standby-'));
  });
  afterEach(async () => {
    await rm(stateDir, { recursive: true, force: true });
  });

  it('is a Task of kind standby that owns no input and follows its stores’ changelogs', () => {
    const task = standby();
    expect(task.kind).toBe('standby');
    expect(task.inputPartitions).toEqual([]);
    expect(task.changelogPartitions).toEqual([{ topic: CHANGELOG, partition: 2, storeName: 'counts' }]);
  });

  it('applies changelog records to its LevelDB store, reports its offset sum and checkpoints it', async () => {
    const task = standby();
    await task.initialize();
    expect(task.changelogOffsets()).toEqual([{ topic: CHANGELOG, partition: 2, offset: 0 }]);
    // Offsets 0..119 hold records; 120 is a transaction marker the reader stepped over.
    await task.update(CHANGELOG, 2, records(0, 60), 60);
    await task.update(CHANGELOG, 2, records(60, 120), 121);
    expect(task.storeFor('counts').get(Buffer.from('key-7'))).toEqual(long(107));
    expect(task.offsetSum()).toBe(121);
    // Fewer records than the threshold: no checkpoint (an fsync) at every commit.
    expect(await task.maybeCheckpoint()).toBe(false);
    expect(await readCheckpoint(join(taskDirectory(config(), '0_2'), '.checkpoint'))).toEqual([]);
    expect(await task.maybeCheckpoint(true)).toBe(true);
    expect(await readCheckpoint(join(taskDirectory(config(), '0_2'), '.checkpoint'))).toEqual([
      { topic: CHANGELOG, partition: 2, offset: 121 },
    ]);
    // What the instance puts into its subscription for this task.
    const info = decodeSubscriptionInfo(
      encodeSubscriptionInfo({ ownedTasks: [], taskOffsetSums: new Map([[task.id, task.offsetSum()]]) }),
    );
    expect(info.taskOffsetSums.get('0_2')).toBe(121);
    await task.close({ dirty: false });
  });

  it('checkpoints at a commit once the threshold of applied records is passed', async () => {
    const task = standby();
    await task.initialize();
    await task.update(CHANGELOG, 2, records(0, CHECKPOINT_RECORDS_THRESHOLD), CHECKPOINT_RECORDS_THRESHOLD);
    expect(await task.maybeCheckpoint()).toBe(true);
    expect(await task.maybeCheckpoint()).toBe(false);
    await task.close({ dirty: true });
  });

  it('on promotion, the active finds the standby’s store and restores only the tail past its checkpoint', async () => {
    const N = 500;
    const task = standby();
    await task.initialize();
    await task.update(CHANGELOG, 2, records(0, N), N);
    await task.close({ dirty: false });
    // The instance restarts (or the task is promoted): a new standby resumes at the checkpoint.
    const resumed = standby();
    await resumed.initialize();
    expect(resumed.changelogOffsets()).toEqual([{ topic: CHANGELOG, partition: 2, offset: N }]);
    await resumed.close({ dirty: true });

    // The active task of 0_2 opens the same folder, as TaskRuntime does.
    const dir = taskDirectory(config(), '0_2');
    const active = new StreamTask({
      id: { subtopology: 0, partition: 2 },
      applicationId: 'app',
      topology: countingTopology(),
      collector: { send: () => {} },
      storeFactory: (_name, _taskId, builder) => builder.bytesStore(levelBytesStores(dir)),
      checkpointFile: join(dir, '.checkpoint'),
      logger: silent,
    });
    const checkpoint = await active.initializeStores();
    const changelogEnd = N + 40;
    const plan = restoreStart(checkpoint, { topic: CHANGELOG, partition: 2 }, 0, changelogEnd);
    expect(plan).toEqual({ start: N, checkpoint: N });
    expect(changelogEnd - plan.start).toBe(40);
    expect(active.storeFor('counts').get(Buffer.from('key-49'))).toEqual(long(N - 1));
    await active.close();
  });

  it('wipes its store when its checkpoint is below the changelog’s log start, as a restore does', async () => {
    const task = standby();
    await task.initialize();
    await task.update(CHANGELOG, 2, records(0, 30), 30);
    await task.close({ dirty: false });
    const again = standby();
    await again.initialize();
    // Retention deleted everything before 1000 while this instance was away.
    expect(
      await again.startPositions(
        () => 1000,
        () => 1200,
      ),
    ).toEqual([{ topic: CHANGELOG, partition: 2, offset: 1000 }]);
    expect(again.storeFor('counts').get(Buffer.from('key-3'))).toBeUndefined();
    await again.close({ dirty: true });
    expect(await readCheckpoint(join(taskDirectory(config(), '0_2'), '.checkpoint'))).toEqual([
      { topic: CHANGELOG, partition: 2, offset: 1000 },
    ]);
  });

  it('lets a serde with prepare (schema registry) see the records before it applies them', async () => {
    const prepared: string[] = [];
    const valueSerde = {
      ...Serdes.Long(),
      prepare: async (bytes: Buffer) => {
        prepared.push(String(bytes.readBigInt64BE(0)));
      },
    };
    const topology = new Topology()
      .addSource('src', 'words', { keySerde: Serdes.String(), valueSerde: Serdes.String() })
      .addProcessor('count', () => ({ process() {} }), 'src')
      .addStateStore(Stores.keyValueStoreBuilder('counts', Serdes.String(), valueSerde), 'count');
    const task = new StandbyTask('0_2', { config: config(), topology, logger: silent });
    await task.initialize();
    await task.update(CHANGELOG, 2, records(0, 3), 3);
    expect(prepared).toEqual(['0', '1', '2']);
    await task.close({ dirty: false });
  });

  it('says clearly what is wrong with a record it cannot take', async () => {
    const task = standby();
    await expect(task.update(CHANGELOG, 2, [], 1)).rejects.toThrow(
      /update\(\) while created; call initialize\(\) first/,
    );
    await task.initialize();
    await expect(task.update('other-changelog', 2, [], 1)).rejects.toThrow(
      /does not follow other-changelog-2; it follows app-counts-changelog-2/,
    );
    await task.update(CHANGELOG, 2, records(0, 5), 5);
    await expect(task.update(CHANGELOG, 2, [], 3)).rejects.toThrow(/went back from 5 to 3/);
    await task.close({ dirty: true });
    expect(
      () => new StandbyTask('7_0', { config: config(), topology: countingTopology(), logger: silent }),
    ).toThrow(/no sub-topology 7/);
  });
});

import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeCheckpoint } from '@kstreams/state-store';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decodeSubscriptionInfo, LATEST_OFFSET } from '../../src/kafka/subscription-info.ts';
import { Topology } from '../../src/processor/topology.ts';
import { StandbyTask } from '../../src/runtime/standby-task.ts';
import { CHECKPOINT_FILE_NAME, taskDirectory } from '../../src/runtime/state-directory.ts';
import {
  SubscriptionUserData,
  taskDirectoriesOnDisk,
  taskOffsetSums,
} from '../../src/runtime/task-offset-sums.ts';
import { Serdes } from '../../src/serdes/serdes.ts';
import { Stores } from '../../src/state/index.ts';

const silent = pino({ level: 'silent' });

/** Sub-topology 0 counts into two logged stores; sub-topology 1 is stateless. */
function topology(): Topology {
  return new Topology()
    .addSource('src', 'words', { keySerde: Serdes.String(), valueSerde: Serdes.String() })
    .addProcessor('count', () => ({ process() {} }), 'src')
    .addStateStore(Stores.keyValueStoreBuilder('counts', Serdes.String(), Serdes.Long()), 'count')
    .addStateStore(Stores.keyValueStoreBuilder('totals', Serdes.String(), Serdes.Long()), 'count')
    .addSource('src2', 'other', { keySerde: Serdes.String(), valueSerde: Serdes.String() })
    .addSink('out', 'other-out', { keySerde: Serdes.String(), valueSerde: Serdes.String() }, 'src2');
}

describe('taskOffsetSums', () => {
  let stateDir: string;
  const config = () => ({ applicationId: 'app', stateDir });
  const subtopologies = () => topology().subtopologies('app');
  const checkpoint = async (task: string, entries: Array<[string, number, number]>) => {
    const dir = taskDirectory(config(), task);
    await mkdir(dir, { recursive: true });
    await writeCheckpoint(
      join(dir, CHECKPOINT_FILE_NAME),
      entries.map(([topic, partition, offset]) => ({ topic, partition, offset })),
    );
  };

  beforeEach(async () => {
    stateDir = await mkdtemp(join(tmpdir(), 'kstreams-offset-sums-'));
  });
  afterEach(async () => {
    await rm(stateDir, { recursive: true, force: true });
  });

  it('reports nothing for an instance without a state folder yet', async () => {
    expect(await taskDirectoriesOnDisk(config())).toEqual([]);
    const sums = await taskOffsetSums({
      config: config(),
      subtopologies: subtopologies(),
      runningActives: ['1_0'],
      standbys: [],
    });
    expect(sums).toEqual(new Map([['1_0', LATEST_OFFSET]]));
  });

  it('sums the checkpoints of task folders on disk, -2 for running actives, standbys’ positions', async () => {
    // 0_0 runs: its checkpoint on disk is not what the leader needs to know (it runs).
    await checkpoint('0_0', [['app-counts-changelog', 0, 10]]);
    // 0_1 moved away: both stores' positions add up.
    await checkpoint('0_1', [
      ['app-counts-changelog', 1, 1_000],
      ['app-totals-changelog', 1, 234],
    ]);
    // 0_3: a checkpoint of one store only (the other had nothing): that one's position.
    await checkpoint('0_3', [['app-totals-changelog', 3, 77]]);
    // Not reported: a folder without a checkpoint, a checkpoint of another partition's or an old
    // topology's changelog, a torn checkpoint, a stateless sub-topology's folder, the global folder.
    await mkdir(taskDirectory(config(), '0_4'), { recursive: true });
    await checkpoint('0_5', [
      ['app-gone-changelog', 5, 900],
      ['app-counts-changelog', 4, 900],
    ]);
    await mkdir(taskDirectory(config(), '0_6'), { recursive: true });
    await writeFile(join(taskDirectory(config(), '0_6'), CHECKPOINT_FILE_NAME), '{"version":1,"entr');
    await checkpoint('1_2', [['app-counts-changelog', 2, 5]]);
    await mkdir(join(stateDir, 'app', 'global'), { recursive: true });
    await writeFile(join(stateDir, 'app', '0_7'), 'a file, not a task folder');

    // 0_2 is a standby of this instance, its position ahead of its (older) checkpoint.
    await checkpoint('0_2', [['app-counts-changelog', 2, 50]]);
    const standby = new StandbyTask('0_2', { config: config(), topology: topology(), logger: silent });
    await standby.initialize();
    try {
      await standby.update('app-counts-changelog', 2, [], 80);
      const sums = await taskOffsetSums({
        config: config(),
        subtopologies: subtopologies(),
        runningActives: ['0_0', '1_0'],
        standbys: [standby],
      });
      expect(Object.fromEntries(sums)).toEqual({
        '0_0': LATEST_OFFSET,
        '1_0': LATEST_OFFSET,
        // 80 from the standby (counts), 0 for totals it has no position of yet.
        '0_2': 80,
        '0_1': 1_234,
        '0_3': 77,
      });
    } finally {
      await standby.close({ dirty: false });
    }
  });

  it('reports a task that closed as a standby from the checkpoint its close wrote', async () => {
    const standby = new StandbyTask('0_1', { config: config(), topology: topology(), logger: silent });
    await standby.initialize();
    await standby.update('app-counts-changelog', 1, [], 40);
    await standby.update('app-totals-changelog', 1, [], 2);
    await standby.close({ dirty: false });
    const sums = await taskOffsetSums({
      config: config(),
      subtopologies: subtopologies(),
      runningActives: [],
      standbys: [],
    });
    expect(sums).toEqual(new Map([['0_1', 42]]));
  });

  it('encodes the subscription synchronously: live tasks now, tasks on disk as last refreshed', async () => {
    await checkpoint('0_1', [['app-counts-changelog', 1, 300]]);
    let actives = ['0_0'];
    const userData = new SubscriptionUserData({
      config: config(),
      subtopologies: subtopologies(),
      processId: 'process-1',
      applicationServer: 'here:8080',
      runningActives: () => actives,
      standbys: () => [{ id: '0_2', offsetSum: () => 5 }],
    });
    const decoded = () => decodeSubscriptionInfo(userData.encode());
    expect(Object.fromEntries(decoded().taskOffsetSums)).toEqual({ '0_0': LATEST_OFFSET, '0_2': 5 });
    await userData.refresh();
    const info = decoded();
    expect(info).toMatchObject({
      version: 2,
      processId: 'process-1',
      applicationServer: 'here:8080',
      ownedTasks: ['0_0'],
    });
    expect(Object.fromEntries(info.taskOffsetSums)).toEqual({ '0_0': LATEST_OFFSET, '0_1': 300, '0_2': 5 });
    // 0_1 runs here now: its live state wins over the checkpoint read before.
    actives = ['0_0', '0_1'];
    expect(decoded().taskOffsetSums.get('0_1')).toBe(LATEST_OFFSET);
  });
});

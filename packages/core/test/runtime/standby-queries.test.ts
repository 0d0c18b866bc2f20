// Interactive queries with standbys: queryMetadataForKey's standbyHosts (from assignment info v2 as
// describeGroups shows it) and store() with enableStaleStores reading a real standby's LevelDB store.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AssignerProtocol, type Kafka } from 'kafkajs';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type GroupMemberDescription, StreamsAdmin } from '../../src/kafka/admin.ts';
import { encodeAssignmentInfo } from '../../src/kafka/assignment-info.ts';
import { encodeSubscriptionInfo } from '../../src/kafka/subscription-info.ts';
import { StreamsMetricsRecorder } from '../../src/metrics/streams-metrics-recorder.ts';
import { Topology } from '../../src/processor/topology.ts';
import {
  KeyQueryResolver,
  QueryableStoreTypes,
  type QueryDeps,
  readOnlyStore,
} from '../../src/runtime/interactive-queries.ts';
import { taskHosts } from '../../src/runtime/key-hosts.ts';
import { localThreadMetadata, standbyTaskMetadata } from '../../src/runtime/local-metadata.ts';
import { StandbyTask } from '../../src/runtime/standby-task.ts';
import { Serdes } from '../../src/serdes/serdes.ts';
import { Stores } from '../../src/state/index.ts';

const silent = pino({ level: 'silent' });

function countingTopology(): Topology {
  return new Topology()
    .addSource('src', 'words', { keySerde: Serdes.String(), valueSerde: Serdes.String() })
    .addProcessor('count', () => ({ process() {} }), 'src')
    .addStateStore(Stores.keyValueStoreBuilder('counts', Serdes.String(), Serdes.Long()), 'count')
    .addSink('out', 'counts-out', { keySerde: Serdes.String(), valueSerde: Serdes.Long() }, 'count');
}

describe('taskHosts', () => {
  const task = { id: '0_2', partition: 2, sourceTopics: ['words'] };
  const members: GroupMemberDescription[] = [
    { memberId: 'a', applicationServer: 'a:1', assignment: { words: [0, 2] }, standbyTasks: ['0_1'] },
    { memberId: 'b', applicationServer: 'b:1', assignment: { words: [1] }, standbyTasks: ['0_2'] },
    { memberId: 'b2', applicationServer: 'b:1', assignment: {}, standbyTasks: ['0_0', '0_2'] },
    { memberId: 'c', applicationServer: 'c:1', assignment: {}, standbyTasks: ['0_2'] },
    { memberId: 'd', assignment: {}, standbyTasks: ['0_2'] },
    { memberId: 'v1', applicationServer: 'old:1', assignment: { words: [3] } },
  ];

  it('finds the active by its partition and the standbys by their assignment info, once each', () => {
    expect(taskHosts(members, task, { active: false, standby: false, host: 'z:1' })).toEqual({
      host: 'a:1',
      standbyHosts: ['b:1', 'c:1'],
    });
  });

  it('counts this instance’s own standby and never lists the active’s host as a standby', () => {
    expect(taskHosts(members, task, { active: false, standby: true, host: 'z:1' }).standbyHosts).toEqual([
      'b:1',
      'c:1',
      'z:1',
    ]);
    // A stale view: b now runs the task here as active; it is not its own standby.
    expect(taskHosts(members, task, { active: true, standby: false, host: 'b:1' })).toEqual({
      host: 'b:1',
      standbyHosts: ['c:1'],
    });
  });
});

describe('StreamsAdmin.groupMembers', () => {
  it('reads each member’s standby tasks from its assignment info v2 (none from v1 or foreign userData)', async () => {
    const member = (memberId: string, server: string, userData: Buffer) => ({
      memberId,
      memberMetadata: AssignerProtocol.MemberMetadata.encode({
        version: 3,
        topics: ['words'],
        userData: encodeSubscriptionInfo({
          ownedTasks: [],
          applicationServer: server,
          taskOffsetSums: new Map(),
        }),
      }),
      memberAssignment: AssignerProtocol.MemberAssignment.encode({
        version: 3,
        assignment: { words: [0] },
        userData,
      }),
    });
    const members = [
      member('m1', 'a:1', encodeAssignmentInfo({ activeTasks: ['0_0'], standbyTasks: ['0_1', '0_2'] })),
      member('m2', 'b:1', Buffer.from(JSON.stringify({ tasks: ['0_0'] }))),
      member('m3', 'c:1', Buffer.from('not json')),
    ];
    const kafka = { admin: () => ({ describeGroups: async () => ({ groups: [{ members }] }) }) };
    const admin = new StreamsAdmin(kafka as unknown as Kafka);
    expect(await admin.groupMembers('app')).toEqual([
      { memberId: 'm1', applicationServer: 'a:1', assignment: { words: [0] }, standbyTasks: ['0_1', '0_2'] },
      { memberId: 'm2', applicationServer: 'b:1', assignment: { words: [0] }, standbyTasks: [] },
      { memberId: 'm3', applicationServer: 'c:1', assignment: { words: [0] }, standbyTasks: [] },
    ]);
  });
});

describe('queries against a standby', () => {
  let stateDir: string;
  let standby: StandbyTask;
  const config = () => ({
    applicationId: 'app',
    stateDir,
    applicationServer: 'here:1',
    defaultKeySerde: undefined,
    defaultValueSerde: undefined,
  });

  beforeEach(async () => {
    stateDir = await mkdtemp(join(tmpdir(), 'kstreams-standby-iq-'));
    standby = new StandbyTask('0_1', { config: config(), topology: countingTopology(), logger: silent });
    await standby.initialize();
    const long = Buffer.alloc(8);
    long.writeBigInt64BE(42n);
    await standby.update(
      'app-counts-changelog',
      1,
      [{ key: Buffer.from('kafka'), value: long, timestamp: 1 }],
      1,
    );
  });
  afterEach(async () => {
    await standby.close({ dirty: false });
    await rm(stateDir, { recursive: true, force: true });
  });

  const deps = (groupMembers: () => Promise<unknown[]>): QueryDeps =>
    ({
      config: config(),
      topology: countingTopology(),
      admin: { partitionCounts: async () => new Map([['words', 4]]), groupMembers },
      tasks: () => [],
      standbyTasks: () => [standby],
    }) as unknown as QueryDeps;

  it('answers only when asked with enableStaleStores', async () => {
    const d = deps(async () => []);
    expect(readOnlyStore<string, number>(d, 'counts').get('kafka')).toBeUndefined();
    const stale = readOnlyStore<string, number>(d, 'counts', { enableStaleStores: true });
    expect(stale.get('kafka')).toBe(42);
    expect(await stale.approximateNumEntries()).toBe(1);
    // A closed standby answers nothing (its stores are closed).
    await standby.close({ dirty: false });
    expect(stale.get('kafka')).toBeUndefined();
    expect(QueryableStoreTypes.keyValueStore().kind).toBe('key-value');
  });

  it('lists this instance as a standby host of the key’s task, the active elsewhere', async () => {
    const resolver = new KeyQueryResolver(
      deps(async () => [
        { memberId: 'a', applicationServer: 'a:1', assignment: { words: [0, 1] }, standbyTasks: [] },
        { memberId: 'b', applicationServer: 'b:1', assignment: { words: [2, 3] }, standbyTasks: ['0_1'] },
      ]),
    );
    const meta = await resolver.metadataForKey('counts', 'kafka', () => 1);
    expect(meta).toEqual({
      partition: 1,
      taskId: '0_1',
      local: false,
      host: 'a:1',
      standbyHosts: ['b:1', 'here:1'],
    });
  });
});

describe('standby task metadata', () => {
  it('shows each changelog partition’s position and lag against the fetched high watermark', () => {
    const recorder = new StreamsMetricsRecorder('info');
    recorder.fetched('app-counts-changelog', 1, 1_500);
    const standby = {
      id: '0_1',
      changelogOffsets: () => [
        { topic: 'app-counts-changelog', partition: 1, offset: 1_200 },
        { topic: 'app-totals-changelog', partition: 1, offset: 7 },
      ],
    };
    const meta = localThreadMetadata({
      threadName: 't',
      state: 'RUNNING',
      thread: undefined,
      recorder,
      standbys: [standby],
    });
    expect(meta.activeTasks).toEqual([]);
    expect(meta.standbyTasks).toEqual([
      {
        taskId: '0_1',
        state: 'RUNNING',
        topicPartitions: [
          {
            topic: 'app-counts-changelog',
            partition: 1,
            position: 1_200,
            committedOffset: null,
            endOffset: 1_500,
            lag: 300,
          },
          {
            topic: 'app-totals-changelog',
            partition: 1,
            position: 7,
            committedOffset: null,
            endOffset: null,
            lag: null,
          },
        ],
        processRate: 0,
        processTotal: 0,
        rollbacksTotal: 0,
        droppedRecordsTotal: 0,
        lastCommitMs: null,
        restores: [],
      },
    ]);
    expect(standbyTaskMetadata(standby, recorder).topicPartitions[0]!.lag).toBe(300);
  });
});

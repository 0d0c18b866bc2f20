// The leader's assignor with standbys inside kstreams' group member on the real broker: two
// instances get their actives and a standby of each other's tasks (assignment info v2), lags come
// from the real changelog's end offsets, describeGroups shows each member's standbys (what
// queryMetadataForKey's standbyHosts read), and a third instance joins cooperatively: nobody owns
// a partition twice and its actives come in the follow-up, standing by for them meanwhile.
import { afterAll, describe, expect, it } from 'vitest';
import { testKafka, topicsForThisFile, uniqueName } from '../../../../../scripts/test/kafka.ts';
import { StreamsAdmin } from '../../../src/kafka/admin.ts';
import { type AssignmentInfo, decodeAssignmentInfo } from '../../../src/kafka/assignment-info.ts';
import { toKeys } from '../../../src/kafka/membership/cooperative.ts';
import { GroupMember } from '../../../src/kafka/membership/group-member.ts';
import { highAvailabilityAssignor } from '../../../src/kafka/membership/high-availability-assignor.ts';
import { encodeSubscriptionInfo, LATEST_OFFSET } from '../../../src/kafka/subscription-info.ts';
import { taskHosts } from '../../../src/runtime/key-hosts.ts';

const topics = topicsForThisFile();
const members: GroupMember[] = [];
const admins: StreamsAdmin[] = [];

afterAll(async () => {
  await Promise.all(members.map((m) => m.close({ leaveGroup: true }).catch(() => {})));
  for (const a of admins) await a.disconnect().catch(() => {});
});

async function until(condition: () => boolean, what: string, timeoutMs = 40_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('highAvailabilityAssignor in GroupMember on a real broker', () => {
  it('assigns standbys on other instances and moves actives in two phases', async () => {
    const input = await topics.create('ha-input', 4);
    const changelog = await topics.create('ha-counts-changelog', 4);
    // Each changelog partition holds 10 records: an instance without state lags 10 per task,
    // within acceptableRecoveryLag, so balance decides.
    const producer = testKafka().producer();
    await producer.connect();
    await producer.send({
      topic: changelog,
      messages: Array.from({ length: 40 }, (_, i) => ({ partition: i % 4, key: `k${i}`, value: `${i}` })),
    });
    await producer.disconnect();
    const groupId = uniqueName('ha-group');
    topics.cleanUpPrefix(groupId);
    const admin = new StreamsAdmin(testKafka());
    admins.push(admin);
    await admin.connect();

    const assignments = new Map<string, AssignmentInfo[]>();
    const instance = (processId: string, server: string) => {
      assignments.set(processId, []);
      const m: GroupMember = new GroupMember(testKafka(), {
        groupId,
        groupInstanceId: null,
        topics: [input],
        sessionTimeoutMs: 10_000,
        rebalanceTimeoutMs: 15_000,
        heartbeatIntervalMs: 500,
        assignor: highAvailabilityAssignor({
          subtopologies: () => [{ id: 0, sourceTopics: [input], changelogTopics: [changelog] }],
          config: {
            numStandbyReplicas: 1,
            acceptableRecoveryLag: 10_000,
            maxWarmupReplicas: 2,
            probingRebalanceIntervalMs: 600_000,
          },
          processId,
          endOffsets: (t) => admin.endOffsets(t),
        }),
        // What the runtime reports: its actives running, its standbys caught up (10 records).
        userData: () => {
          const info = decodeAssignmentInfo(m.currentAssignment.userData);
          return encodeSubscriptionInfo({
            ownedTasks: info.activeTasks,
            applicationServer: server,
            processId,
            taskOffsetSums: new Map([
              ...info.standbyTasks.map((t) => [t, 10] as const),
              ...info.activeTasks.map((t) => [t, LATEST_OFFSET] as const),
            ]),
          });
        },
        listener: {
          onPartitionsRevoked: async () => {},
          onPartitionsAssigned: async (_added, assignment) =>
            void assignments.get(processId)!.push(decodeAssignmentInfo(assignment.userData)),
          onPartitionsLost: async () => {},
          onFatal: () => {},
        },
      });
      members.push(m);
      setInterval(() => m.poll(), 200).unref();
      return m;
    };
    const info = (m: GroupMember) => decodeAssignmentInfo(m.currentAssignment.userData);

    const p1 = instance('p1', 'p1:80');
    const p2 = instance('p2', 'p2:80');
    await Promise.all([p1.start(), p2.start()]);
    await until(
      () => info(p1).activeTasks.length === 2 && info(p2).activeTasks.length === 2,
      'two actives each',
    );
    // One standby per task, on the other instance.
    expect(info(p1).standbyTasks).toEqual(info(p2).activeTasks);
    expect(info(p2).standbyTasks).toEqual(info(p1).activeTasks);
    expect(toKeys(p1.ownedPartitions).size).toBe(2);

    // describeGroups (interactive queries' view) shows the standbys.
    const described = await admin.groupMembers(groupId);
    const task = info(p1).activeTasks[0]!;
    const hosts = taskHosts(
      described,
      { id: task, partition: Number(task.split('_')[1]), sourceTopics: [input] },
      { active: false, standby: false },
    );
    expect(hosts).toEqual({ host: 'p1:80', standbyHosts: ['p2:80'] });

    // A third instance: its first assignment has no actives (still owned), its final one has.
    const p3 = instance('p3', 'p3:80');
    const ownedTwice: string[] = [];
    const watcher = setInterval(() => {
      const owned = [p1, p2, p3].flatMap((m) => [...toKeys(m.ownedPartitions)]);
      if (new Set(owned).size !== owned.length) ownedTwice.push(owned.join(' '));
    }, 20);
    await p3.start();
    await until(() => info(p3).activeTasks.length >= 1, 'p3 gets an active');
    await until(
      () =>
        [p1, p2, p3].every(
          (m) => m.currentAssignment.partitions.length > 0 && info(m).activeTasks.length > 0,
        ),
      'every instance runs a task',
    );
    clearInterval(watcher);
    expect(ownedTwice).toEqual([]);
    // p3's first assignment: no active yet (p1 and p2 still owned them), a standby of the task it
    // is to run (so its state catches up meanwhile); the follow-up hands the task over.
    const [first, ...later] = assignments.get('p3')!;
    expect(first!.activeTasks).toEqual([]);
    const arriving = later.flatMap((a) => a.activeTasks);
    expect(arriving.length).toBeGreaterThanOrEqual(1);
    for (const t of arriving) expect(first!.standbyTasks).toContain(t);
    const all = [p1, p2, p3].flatMap((m) => info(m).activeTasks).sort();
    expect(all).toEqual(['0_0', '0_1', '0_2', '0_3']);
    for (const m of [p1, p2, p3])
      for (const t of info(m).activeTasks) expect(info(m).standbyTasks).not.toContain(t);
    const standbys = [p1, p2, p3].flatMap((m) => info(m).standbyTasks).sort();
    expect(standbys).toEqual(['0_0', '0_1', '0_2', '0_3']);
    expect(p3.isLeader).toBe(false);
    for (const m of [p1, p2, p3]) await m.close({ leaveGroup: true });
  });
});

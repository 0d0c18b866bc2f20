// kstreams' own group member on the real broker: members split partitions, a third joins
// cooperatively (the others keep what they keep without revoking it), a static member restarted
// with its groupInstanceId gets its partitions back without a rebalance, a second live member with
// the same id fences the first, and Java's view of the group (DescribeGroups) decodes our bytes.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { AssignerProtocol } from 'kafkajs';
import { afterAll, describe, expect, it } from 'vitest';
import { brokerOptions, brokerPaths } from '../../../../../scripts/kafka/broker.ts';
import { bundleEntry } from '../../../../../scripts/test/bundle.ts';
import { testBrokers, testKafka, topicsForThisFile, uniqueName } from '../../../../../scripts/test/kafka.ts';
import { decodeAssignment, type TopicPartitions } from '../../../src/kafka/membership/consumer-protocol.ts';
import { toKeys } from '../../../src/kafka/membership/cooperative.ts';
import { GroupMember } from '../../../src/kafka/membership/group-member.ts';
import { streamsAssignor } from '../../../src/kafka/membership/task-assignment.ts';

const topics = topicsForThisFile();
const members: GroupMember[] = [];
const children: ChildProcess[] = [];

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await Promise.all(members.map((m) => m.close({ leaveGroup: true }).catch(() => {})));
});

interface Events {
  revoked: TopicPartitions[][];
  assigned: TopicPartitions[][];
  lost: TopicPartitions[][];
  fatal: Error[];
}

function member(groupId: string, topic: string, groupInstanceId: string | null = null) {
  const events: Events = { revoked: [], assigned: [], lost: [], fatal: [] };
  const m = new GroupMember(testKafka(), {
    groupId,
    groupInstanceId,
    topics: [topic],
    sessionTimeoutMs: 10_000,
    rebalanceTimeoutMs: 15_000,
    heartbeatIntervalMs: 500,
    assignor: streamsAssignor({ subtopologies: () => [{ id: 0, sourceTopics: [topic] }] }),
    userData: () => Buffer.from('opaque'),
    listener: {
      onPartitionsRevoked: async (p) => void events.revoked.push(p),
      onPartitionsAssigned: async (p) => void events.assigned.push(p),
      onPartitionsLost: async (p) => void events.lost.push(p),
      onFatal: (e) => void events.fatal.push(e),
    },
  });
  members.push(m);
  // The runtime's loop: the member counts as alive while it polls.
  const poller = setInterval(() => m.poll(), 200);
  poller.unref();
  return { m, events };
}

const toKeysText = (list: TopicPartitions[]) =>
  list
    .flatMap(({ topic, partitions }) => partitions.map((p) => `${topic}:${p}`))
    .sort()
    .join(',');
const count = (m: GroupMember) => toKeys(m.ownedPartitions).size;

async function until(condition: () => boolean, what: string, timeoutMs = 40_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

interface ChildEvent {
  event: string;
  message?: string;
  at: number;
  partitions?: TopicPartitions[];
  generationId?: number;
}

/** The static member fixture as a process; `spawnedAt`: when it was started (epoch ms). */
async function staticMemberProcess(env: Record<string, string>) {
  const script = await bundleEntry(join(import.meta.dirname, 'fixtures', 'static-member.ts'));
  const events: ChildEvent[] = [];
  const spawnedAt = Date.now();
  const child = spawn(process.execPath, [script], {
    env: { ...process.env, ...env, BROKERS: testBrokers().join(',') },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  createInterface({ input: child.stdout! }).on('line', (line) => events.push(JSON.parse(line) as ChildEvent));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const kill = () => {
    child.kill('SIGKILL');
    return exited;
  };
  return { events, spawnedAt, kill, signal: (s: NodeJS.Signals) => child.kill(s) };
}

/**
 * Java's Admin.describeConsumerGroups on the group (what kafka-consumer-groups.sh --describe
 * shows): `member <id> <instance id> <topic:partition,...>` lines. Asynchronous: the members in
 * this process keep heartbeating meanwhile.
 */
function describeWithJava(groupId: string): Promise<string[]> {
  const classpath = join(brokerPaths(brokerOptions()).libs, '*');
  const source = join(import.meta.dirname, 'fixtures', 'DescribeGroup.java');
  return new Promise((resolve, reject) =>
    execFile(
      'java',
      ['-cp', classpath, source, testBrokers().join(','), groupId],
      { timeout: 60_000 },
      (error, stdout) => (error ? reject(error) : resolve(stdout.trim().split('\n'))),
    ),
  );
}

describe('GroupMember on a real broker', () => {
  it('splits partitions, and a third member joins without revoking what the others keep', async () => {
    const topic = await topics.create('membership-coop', 6);
    const groupId = uniqueName('membership-coop');
    topics.cleanUpPrefix(groupId);
    const a = member(groupId, topic);
    const b = member(groupId, topic);
    await Promise.all([a.m.start(), b.m.start()]);
    await until(() => count(a.m) === 3 && count(b.m) === 3, 'a 3/3 split');
    const aBefore = toKeys(a.m.ownedPartitions);
    const bBefore = toKeys(b.m.ownedPartitions);
    expect([...aBefore].some((k) => bBefore.has(k))).toBe(false);
    const revokedBefore = a.events.revoked.length + b.events.revoked.length;

    const c = member(groupId, topic);
    await c.m.start();
    await until(() => count(a.m) === 2 && count(b.m) === 2 && count(c.m) === 2, 'a 2/2/2 split');
    // Two phases: C's first assignment is empty (A and B still owned everything), its second has
    // what they revoked.
    expect(c.events.assigned[0]).toEqual([]);
    expect([...toKeys(c.events.assigned.flat())].sort()).toEqual([...toKeys(c.m.ownedPartitions)].sort());
    // A and B each revoked exactly the one partition C got, nothing they kept.
    const revoked = [...a.events.revoked, ...b.events.revoked]
      .slice(revokedBefore)
      .flatMap((p) => [...toKeys(p)]);
    expect(revoked.sort()).toEqual([...toKeys(c.m.ownedPartitions)].sort());
    for (const key of toKeys(a.m.ownedPartitions)) expect(aBefore.has(key)).toBe(true);
    for (const key of toKeys(b.m.ownedPartitions)) expect(bBefore.has(key)).toBe(true);
    expect(a.events.lost).toEqual([]);

    // Java's DescribeGroups view (what kafka-consumer-groups.sh --describe reads).
    const admin = await topics.admin();
    const { groups } = await admin.describeGroups([groupId]);
    expect(groups[0]).toMatchObject({ state: 'Stable', protocolType: 'consumer', protocol: 'stream' });
    const described = new Map(
      groups[0]!.members.map((m) => [m.memberId, decodeAssignment(m.memberAssignment).partitions]),
    );
    for (const x of [a, b, c]) expect(described.get(x.m.id)).toEqual(x.m.ownedPartitions);
    const kafkajsView = AssignerProtocol.MemberAssignment.decode(groups[0]!.members[0]!.memberAssignment);
    expect(Object.keys(kafkajsView?.assignment ?? {})).toEqual([topic]);
    for (const x of [a, b, c]) await x.m.close();
  });

  it('gives a restarted static member its partitions back with no rebalance', async () => {
    const topic = await topics.create('membership-static', 4);
    const groupId = uniqueName('membership-static');
    topics.cleanUpPrefix(groupId);
    const s1 = member(groupId, topic, 'instance-1');
    const s2 = member(groupId, topic, 'instance-2');
    // instance-2 joins first and leads the group: its restart takes the static leader's path
    // (JoinGroup v9's skip_assignment, KIP-814).
    await s2.m.start();
    await s1.m.start();
    await until(() => count(s1.m) === 2 && count(s2.m) === 2, 'a 2/2 split');
    expect(s2.m.isLeader).toBe(true);
    const generation = s1.m.generation;
    const line = (x: { m: GroupMember }, instance: string) =>
      `member ${x.m.id} ${instance} ${toKeysText(x.m.ownedPartitions)}`;
    expect((await describeWithJava(groupId)).sort()).toEqual(
      ['assignor stream', line(s1, 'instance-1'), line(s2, 'instance-2')].sort(),
    );
    const s2Partitions = s2.m.ownedPartitions;
    const s1Events = s1.events.assigned.length + s1.events.revoked.length;

    // As after kill -9: no LeaveGroup, the coordinator keeps instance-2's place for the session.
    await s2.m.close({ leaveGroup: false });
    await new Promise((r) => setTimeout(r, 2_000));
    const restarted = member(groupId, topic, 'instance-2');
    const startedAt = performance.now();
    await restarted.m.start();
    const rejoinMs = performance.now() - startedAt;
    console.log(`static member rejoined in ${rejoinMs.toFixed(0)} ms`);

    expect(restarted.m.ownedPartitions).toEqual(s2Partitions);
    expect(restarted.m.generation).toBe(generation);
    expect(restarted.m.isLeader).toBe(true);
    expect(rejoinMs).toBeLessThan(2_000);
    // s1 heard of no rebalance, across a few of its heartbeats.
    await new Promise((r) => setTimeout(r, 2_000));
    expect(s1.events.assigned.length + s1.events.revoked.length).toBe(s1Events);
    expect(s1.m.generation).toBe(generation);

    // A second live member with the same id: the coordinator gives it the id and fences the first.
    const twin = member(groupId, topic, 'instance-2');
    await twin.m.start();
    await until(() => restarted.events.fatal.length > 0, 'the fenced error');
    expect(restarted.events.fatal[0]!.message).toMatch(
      /another live member of group '.*' uses groupInstanceId 'instance-2'.*Give every instance its own groupInstanceId/,
    );
    expect(twin.m.ownedPartitions).toEqual(s2Partitions);

    // close() of a static member leaves only when asked (Kafka Streams' CloseOptions.leaveGroup).
    await twin.m.close({ leaveGroup: true });
    await until(() => count(s1.m) === 4, 's1 taking over the left member’s partitions');
    await s1.m.close({ leaveGroup: true });
  });

  it('gives a static member killed with SIGKILL its partitions back when its process restarts', async () => {
    const topic = await topics.create('membership-kill', 4);
    const groupId = uniqueName('membership-kill');
    topics.cleanUpPrefix(groupId);
    const witness = member(groupId, topic, 'witness');
    const env = { GROUP_ID: groupId, TOPIC: topic, INSTANCE_ID: 'killed' };
    const first = await staticMemberProcess(env);
    await witness.m.start();
    await until(() => count(witness.m) === 2 && first.events.at(-1)?.partitions?.length === 1, 'a 2/2 split');
    const before = first.events.at(-1)!;
    const witnessEvents = witness.events.assigned.length + witness.events.revoked.length;
    await first.kill();

    const second = await staticMemberProcess(env);
    await until(() => second.events.some((e) => e.event === 'assigned'), 'the restarted member’s assignment');
    const after = second.events.find((e) => e.event === 'assigned')!;
    const fromSpawnMs = after.at - second.spawnedAt;
    const joinMs = after.at - second.events.find((e) => e.event === 'starting')!.at;
    console.log(
      `SIGKILLed static member: assigned ${fromSpawnMs} ms after its process was spawned (${joinMs} ms of it joining)`,
    );
    expect(after.partitions).toEqual(before.partitions);
    expect(after.generationId).toBe(before.generationId);
    // Well inside the 10 s session timeout: no wait for the old member's session to expire. (The
    // figure itself, 431-1,762 ms on 2026-12-05, is mostly node's start on a shared machine.)
    expect(fromSpawnMs).toBeLessThan(5_000);
    await new Promise((r) => setTimeout(r, 1_500));
    expect(witness.events.assigned.length + witness.events.revoked.length).toBe(witnessEvents);
    await second.kill();
    await witness.m.close({ leaveGroup: true });
  });

  it('loses its partitions with a clear message when the coordinator removed it, then rejoins', async () => {
    const topic = await topics.create('membership-stall', 4);
    const groupId = uniqueName('membership-stall');
    topics.cleanUpPrefix(groupId);
    const witness = member(groupId, topic);
    const stalled = await staticMemberProcess({
      GROUP_ID: groupId,
      TOPIC: topic,
      SESSION_TIMEOUT_MS: '6000',
    });
    await witness.m.start();
    await until(
      () => count(witness.m) === 2 && stalled.events.at(-1)?.partitions?.length === 1,
      'a 2/2 split',
    );
    const owned = stalled.events.at(-1)!.partitions;
    // A process that stops answering (a long GC pause, a stopped VM) past its session timeout.
    stalled.signal('SIGSTOP');
    await until(() => count(witness.m) === 4, 'the witness taking over', 30_000);
    stalled.signal('SIGCONT');
    await until(() => stalled.events.some((e) => e.event === 'lost'), 'the stalled member’s loss');
    const lost = stalled.events.find((e) => e.event === 'lost')!;
    expect(lost.partitions).toEqual(owned);
    expect(lost.message).toMatch(
      /removed this member from group '.*' \((UNKNOWN_MEMBER_ID|ILLEGAL_GENERATION)\)/,
    );
    await until(() => count(witness.m) === 2, 'the rejoined member’s share', 30_000);
    await stalled.kill();
    await witness.m.close();
  });
});

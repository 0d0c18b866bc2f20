// Standby replicas wired into the runtime (issue 37), on the real broker: two instances with
// numStandbyReplicas 1 under exactly_once each run one active and a standby of the other's task;
// the standbys follow the changelogs; when one instance stops, the other's standby is promoted and
// its active restores only the changelog tail past the standby's position. The same run without
// standbys restores the whole changelog: the difference is what the standby saved.
import { describe, expect, it } from 'vitest';
import { topicsForThisFile } from '../../../../scripts/test/kafka.ts';
import { KafkaStreams } from '../../src/index.ts';
import { StreamsAdmin } from '../../src/kafka/admin.ts';
import { countingTopology } from './fixtures/counting-topology.ts';
import {
  countSequences,
  produce,
  readTopic,
  stopAfterEach,
  tempStateDir,
  testBrokers,
  testKafka,
  waitFor,
} from './kafka-helpers.ts';

const topics = topicsForThisFile();
const apps = stopAfterEach((app: KafkaStreams) => app.close({ timeoutMs: 30_000 }));

const KEYS = Array.from({ length: 400 }, (_, i) => `k${i}`);
const FIRST = 4_000;
const SECOND = 800;
const ROUNDS = 5;
const records = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ key: KEYS[i % KEYS.length]!, value: 'x' }));

const thread = (app: KafkaStreams) => app.metadataForLocalThreads()[0]!;
const activeIds = (app: KafkaStreams) => thread(app).activeTasks.map((t) => t.taskId);
const standbyIds = (app: KafkaStreams) => thread(app).standbyTasks.map((t) => t.taskId);

async function failover(standbys: number) {
  const { input, output, applicationId } = await topics.forApp(`standby${standbys}`, 2);
  const changelog = `${applicationId}-counts-changelog`;
  const newApp = () => {
    const app = new KafkaStreams(countingTopology(input, output), {
      applicationId,
      brokers: testBrokers(),
      processingGuarantee: 'exactly_once',
      numStandbyReplicas: standbys,
      commitIntervalMs: 200,
      stateDir: tempStateDir(),
      logger: 'warn',
    });
    apps.push(app);
    return app;
  };
  const a = newApp();
  const b = newApp();
  await a.start();
  await b.start();
  await waitFor(
    () =>
      activeIds(a).length === 1 &&
      activeIds(b).length === 1 &&
      a.state === 'RUNNING' &&
      b.state === 'RUNNING',
    60_000,
    'one active task on each instance',
  );
  // In rounds, each processed and committed before the next: every round writes each key's new
  // count to the changelog (the store's buffer keeps only a key's last update per commit).
  for (let round = 1; round <= ROUNDS; round++) {
    await produce(input, records(FIRST / ROUNDS));
    await waitFor(
      () => a.metrics().processedRecords + b.metrics().processedRecords >= (round * FIRST) / ROUNDS,
      60_000,
      `round ${round} to be processed`,
    );
  }
  const admin = new StreamsAdmin(testKafka());
  await admin.connect();
  const ends = async () => new Map((await admin.endOffsets([changelog])).map((o) => [o.partition, o.offset]));
  // The standbys have read their changelog to the end (past the last commit's markers).
  if (standbys > 0) {
    await waitFor(
      async () => {
        const end = await ends();
        return [a, b].every((app) =>
          thread(app).standbyTasks.every((s) =>
            s.topicPartitions.every((tp) => tp.position === end.get(tp.partition)),
          ),
        );
      },
      60_000,
      'the standbys to reach the changelog end',
    );
  }
  const aActive = activeIds(a)[0]!;
  const placement = {
    a: { active: activeIds(a), standby: standbyIds(a) },
    b: { active: activeIds(b), standby: standbyIds(b) },
  };
  const restoredBefore = b.metrics().restoredRecords;
  // Where b's standby of the task that will move stands (undefined without standbys).
  const standbyPosition = thread(b).standbyTasks.find((t) => t.taskId === aActive)?.topicPartitions[0]
    ?.position;

  const stoppedAt = Date.now();
  await a.close({ timeoutMs: 30_000 });
  await waitFor(() => activeIds(b).length === 2 && b.state === 'RUNNING', 60_000, 'b to run both tasks');
  const failoverMs = Date.now() - stoppedAt;
  const restored = b.metrics().restoredRecords - restoredBefore;
  // The moved task's whole changelog, its owner's last commit included: what a restore from
  // scratch reads (records and transaction markers).
  const changelogAtStop = (await ends()).get(Number(aActive.split('_')[1]))!;

  // The promoted task processes on from the committed state: every count goes on without a gap.
  await produce(input, records(SECOND));
  const total = FIRST + SECOND;
  const out = await readTopic(output, (r) => r.length >= total, { timeoutMs: 60_000, settleMs: 1_000 });
  const seqs = countSequences(out);
  const perKey = total / KEYS.length;
  for (const key of KEYS)
    expect(seqs.get(key), `counts of ${key}`).toEqual(Array.from({ length: perKey }, (_, i) => i + 1));
  await admin.disconnect();
  return { placement, aActive, changelogAtStop, standbyPosition, restored, failoverMs };
}

describe('standby replicas (numStandbyReplicas)', () => {
  it('each instance stands by for the other; on failover the promoted standby restores only the tail', async () => {
    const run = await failover(1);
    console.log('failover with a standby', run);
    // A standby never shares an instance with its active.
    expect(run.placement.a.standby).toEqual(run.placement.b.active);
    expect(run.placement.b.standby).toEqual(run.placement.a.active);
    // Each round's commits wrote the keys of the task's partition (200) to its changelog.
    expect(run.changelogAtStop).toBeGreaterThanOrEqual(400);
    // Only the tail the standby had not read when the owner stopped (its last commit at most): at
    // most the changelog's end minus the standby's position (markers are not restored records).
    expect(run.standbyPosition).toBeGreaterThan(0);
    expect(run.restored).toBeLessThanOrEqual(run.changelogAtStop - run.standbyPosition!);
    expect(run.restored).toBeLessThan(run.changelogAtStop / 10);
  }, 240_000);

  it('without standbys the new owner restores the whole changelog', async () => {
    const run = await failover(0);
    console.log('failover without a standby', run);
    expect(run.placement.a.standby).toEqual([]);
    expect(run.changelogAtStop).toBeGreaterThanOrEqual(400);
    // All of it but the transaction markers.
    expect(run.restored).toBeGreaterThanOrEqual(run.changelogAtStop / 2);
  }, 240_000);

  it('a task waits on its old owner while the new instance warms up, and moves at the probing rebalance', async () => {
    const { input, output, applicationId } = await topics.forApp('warmup', 2);
    const newApp = () => {
      const app = new KafkaStreams(countingTopology(input, output), {
        applicationId,
        brokers: testBrokers(),
        processingGuarantee: 'exactly_once_v2',
        numStandbyReplicas: 1,
        // Behind by more than this: not caught up, so no task moves to the new instance at once.
        acceptableRecoveryLag: 10,
        probingRebalanceIntervalMs: 60_000,
        commitIntervalMs: 200,
        stateDir: tempStateDir(),
        logger: 'warn',
      });
      apps.push(app);
      return app;
    };
    const a = newApp();
    await a.start();
    await produce(input, records(FIRST));
    await waitFor(() => a.metrics().processedRecords >= FIRST, 60_000, 'a to process the input');
    const b = newApp();
    const joinedAt = Date.now();
    await b.start();
    // b holds no state: the tasks stay on a and b stands by for (warms up) both.
    await waitFor(() => standbyIds(b).length === 2, 60_000, 'b to stand by for both tasks');
    expect(activeIds(a)).toEqual(['0_0', '0_1']);
    expect(activeIds(b)).toEqual([]);
    const restoredBefore = b.metrics().restoredRecords;
    // At the probing rebalance b has caught up: one task moves to it, restoring only the tail.
    await waitFor(() => activeIds(b).length === 1 && b.state === 'RUNNING', 120_000, 'a task to move to b');
    const movedAfterMs = Date.now() - joinedAt;
    const restored = b.metrics().restoredRecords - restoredBefore;
    console.log('warm-up', { movedAfterMs, restored, standbys: { a: standbyIds(a), b: standbyIds(b) } });
    expect(movedAfterMs).toBeGreaterThanOrEqual(50_000);
    expect(restored).toBeLessThan(50);
    expect(activeIds(a)).toHaveLength(1);
    await produce(input, records(SECOND));
    const total = FIRST + SECOND;
    const out = await readTopic(output, (r) => r.length >= total, { timeoutMs: 60_000, settleMs: 1_000 });
    const seqs = countSequences(out);
    for (const key of KEYS)
      expect(seqs.get(key), `counts of ${key}`).toEqual(
        Array.from({ length: total / KEYS.length }, (_, i) => i + 1),
      );
  }, 240_000);
});

// exactly_once on the real broker with real child processes: SIGKILLs, a failing processor, a
// zombie instance and a broker restart, each checked by reading the output with read_committed.
// The first three run under both exactly-once variants: one transaction per task (fenced by the
// transactional id) and exactly_once_v2's one per thread (fenced by the group generation, KIP-447).
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readCheckpoint } from '@kstreams/state-store';
import { describe, expect, it } from 'vitest';
import { testKafka, topicsForThisFile } from '../../../../scripts/test/kafka.ts';
import { type ChildApp, childAppsForThisFile, killAndRestart } from './child-app.ts';
import { countSequences, produce, type ReadRecord, readTopic, waitFor } from './kafka-helpers.ts';
import { countWords, makeLines, prng } from './text-fixtures.ts';

const topics = topicsForThisFile();
const children = childAppsForThisFile();

interface Setup {
  input: string;
  output: string;
  applicationId: string;
  truth: Map<string, number>;
  totalWords: number;
}

async function setUp(name: string, lines: string[]): Promise<Setup> {
  const { input, output, applicationId } = await topics.forApp(`${name}`, 4);
  await produce(
    input,
    lines.map((value, i) => ({ key: String(i), value })),
  );
  const truth = countWords(lines);
  const totalWords = [...truth.values()].reduce((a, b) => a + b, 0);
  return { input, output, applicationId, truth, totalWords };
}

function instance(s: Setup, env: Record<string, string> = {}): ChildApp {
  return children.create({
    APPLICATION_ID: s.applicationId,
    INPUT_TOPIC: s.input,
    OUTPUT_TOPIC: s.output,
    PROCESSING_GUARANTEE: 'exactly_once',
    ...env,
  });
}

/** Every word's counts are exactly 1, 2, …, n with n the true count: no repeat, no gap, no loss. */
function expectExact(records: ReadRecord[], truth: Map<string, number>) {
  const seqs = countSequences(records);
  const wrong: string[] = [];
  for (const [word, n] of truth) {
    const seq = seqs.get(word) ?? [];
    const exact = seq.length === n && seq.every((c, i) => c === i + 1);
    if (!exact)
      wrong.push(
        `${word}: expected 1..${n}, got ${seq.length} values, first bad at ${seq.findIndex((c, i) => c !== i + 1)}`,
      );
  }
  expect(wrong.slice(0, 5)).toEqual([]);
  expect([...seqs.keys()].filter((w) => !truth.has(w))).toEqual([]);
}

const readAll = (s: Setup, timeoutMs: number) =>
  readTopic(s.output, (r) => r.length >= s.totalWords, { timeoutMs });

type Guarantee = 'exactly_once' | 'exactly_once_v2' | 'at_least_once';
const short: Record<Guarantee, string> = {
  exactly_once: 'eos',
  exactly_once_v2: 'eos2',
  at_least_once: 'alo',
};

async function killTest(guarantee: Guarantee, extra: { lines?: number; env?: Record<string, string> } = {}) {
  const lines = makeLines(extra.lines ?? Number(process.env.EOS_KILL_LINES ?? 200_000), 3);
  const s = await setUp(`kill-${short[guarantee]}${extra.env ? '-sb' : ''}`, lines);
  const env = {
    PROCESSING_GUARANTEE: guarantee,
    COMMIT_INTERVAL_MS: guarantee === 'at_least_once' ? '1000' : '100',
    ...extra.env,
  };
  const apps = [instance(s, env).start(), instance(s, env).start(), instance(s, env).start()];
  const rand = prng(guarantee === 'at_least_once' ? 11 : 7);
  // Kill a random instance every few seconds while input is being processed, then restart it.
  await killAndRestart(apps, rand, { rounds: 4, pause: [4000, 3000], down: [500, 1500] });
  return { s, apps };
}

describe.each(['exactly_once', 'exactly_once_v2'] as const)('%s', (guarantee) => {
  it('survives repeated SIGKILLs of 3 instances: every word counts 1..n, once each', async () => {
    const { s } = await killTest(guarantee);
    const records = await readAll(s, 300_000);
    expectExact(records, s.truth);
    expect(records).toHaveLength(s.totalWords);
  }, 480_000);

  it('survives repeated SIGKILLs with a standby per task (numStandbyReplicas 1): output exact', async () => {
    const { s, apps } = await killTest(guarantee, { lines: 100_000, env: { NUM_STANDBY_REPLICAS: '1' } });
    const records = await readAll(s, 300_000);
    expectExact(records, s.truth);
    expect(records).toHaveLength(s.totalWords);
    // The standbys ran: on the instances of the tasks' failovers, never beside their active.
    expect(apps.some((a) => a.events.some((e) => (e.standbyTasks?.length ?? 0) > 0))).toBe(true);
  }, 480_000);

  it('rolls back the tasks when a processor throws once, and the output stays exact', async () => {
    const lines = makeLines(3000, 3, 5);
    const s = await setUp(`${short[guarantee]}-throw`, lines);
    const app = instance(s, { FAIL_ONCE_AT: '4000', PROCESSING_GUARANTEE: guarantee }).start();
    const records = await readAll(s, 120_000);
    expectExact(records, s.truth);
    await waitFor(() => (app.latestMetrics()?.rollbacks ?? 0) >= 1, 10_000, 'the rollback to be counted');
  });

  it('fences a zombie: paused past the session timeout, its tasks move, its late writes never show', async () => {
    const lines = makeLines(30_000, 3, 9);
    const s = await setUp(`${short[guarantee]}-zombie`, lines.slice(0, 10_000));
    const env = { SESSION_TIMEOUT_MS: '6000', PROCESSING_GUARANTEE: guarantee };
    const zombie = instance(s, env).start();
    const survivor = instance(s, env).start();
    await waitFor(() => zombie.state === 'RUNNING' && survivor.state === 'RUNNING', 60_000, 'both RUNNING');
    // Give the zombie uncommitted work in flight, then freeze it.
    await produce(
      s.input,
      lines.slice(10_000, 20_000).map((value, i) => ({ key: `b${i}`, value })),
    );
    await new Promise((r) => setTimeout(r, 300));
    zombie.signal('SIGSTOP');
    // Past the session timeout the group hands its tasks to the survivor, which fences it (by its
    // transactional id, or by the group generation under exactly_once_v2).
    await new Promise((r) => setTimeout(r, 12_000));
    await produce(
      s.input,
      lines.slice(20_000).map((value, i) => ({ key: `c${i}`, value })),
    );
    zombie.signal('SIGCONT');
    const truth = countWords(lines);
    const total = [...truth.values()].reduce((a, b) => a + b, 0);
    // The zombie found out (fenced or dropped from the group) and came back as a member.
    await waitFor(() => zombie.state === 'RUNNING', 60_000, 'the zombie to rejoin');
    const records = await readTopic(s.output, (r) => r.length >= total, {
      timeoutMs: 120_000,
      settleMs: 3000,
    });
    expectExact(records, truth);
    expect(records).toHaveLength(total);
  });
});

describe('exactly_once', () => {
  it('the same run under at_least_once loses nothing (and shows its duplicates)', async () => {
    const { s } = await killTest('at_least_once');
    const records = await readTopic(
      s.output,
      (rs) => {
        const last = new Map<string, number>();
        for (const r of rs)
          last.set(r.key, Math.max(last.get(r.key) ?? 0, Number(r.value.readBigInt64BE(0))));
        return [...s.truth].every(([w, n]) => (last.get(w) ?? 0) >= n);
      },
      { timeoutMs: 300_000 },
    );
    const max = new Map<string, number>();
    for (const r of records) max.set(r.key, Math.max(max.get(r.key) ?? 0, Number(r.value.readBigInt64BE(0))));
    const lost = [...s.truth].filter(([w, n]) => (max.get(w) ?? 0) < n);
    expect(lost).toEqual([]);
    console.log(
      `[at_least_once kill test] ${records.length} count records for ${s.totalWords} words: ${records.length - s.totalWords} duplicates`,
    );
  }, 480_000);

  it('rolling restarts and a SIGKILL of static members (groupInstanceId), input flowing: the output stays exact', async () => {
    const lines = makeLines(48_000, 3, 17);
    const chunks = 6;
    const chunk = lines.length / chunks;
    const s = await setUp('eos-roll', lines.slice(0, chunk));
    s.truth = countWords(lines);
    s.totalWords = [...s.truth.values()].reduce((a, b) => a + b, 0);
    // Debug logs (the thread's diagnostics every 5 s: assigned, tasks, creating, paused; the
    // member's JoinGroup and SyncGroup): this case once ended short after 300 s under heavy load
    // with no warning to tell why (2026-12-06); the child logs in kstreams-child-logs/ would.
    const apps = [0, 1, 2].map((i) =>
      instance(s, {
        GROUP_INSTANCE_ID: `${s.applicationId}-${i}`,
        SESSION_TIMEOUT_MS: '10000',
        LOG_LEVEL: 'debug',
      }).start(),
    );
    await waitFor(() => apps.every((a) => a.state === 'RUNNING'), 60_000, 'all RUNNING');
    const more = (n: number) =>
      produce(
        s.input,
        lines.slice(n * chunk, (n + 1) * chunk).map((value, i) => ({ key: `r${n}-${i}`, value })),
      );
    // A rolling restart: each instance in turn closes (a static member keeps its place in the group)
    // and comes back with its id, while input keeps coming.
    for (const [i, app] of apps.entries()) {
      await more(i + 1);
      await app.stop();
      app.start();
      await waitFor(() => app.state === 'RUNNING', 60_000, `instance ${i} RUNNING again`);
    }
    // kill -9 in the middle of a chunk, and a restart with the same id within the session timeout.
    await more(4);
    await apps[1]!.kill();
    apps[1]!.start();
    await more(5);
    const records = await readAll(s, 300_000);
    expectExact(records, s.truth);
    expect(records).toHaveLength(s.totalWords);
  }, 480_000);

  it('after a SIGKILL restores only the changelog tail written since its checkpoint', async () => {
    const lines = makeLines(20_000, 3, 13);
    const s = await setUp('eos-tail', lines.slice(0, 15_000));
    const stateDir = mkdtempSync(join(tmpdir(), 'kstreams-eos-tail-'));
    const app = instance(s, { STATE_DIR: stateDir }).start();
    const firstTruth = countWords(lines.slice(0, 15_000));
    const firstTotal = [...firstTruth.values()].reduce((a, b) => a + b, 0);
    await readTopic(s.output, (r) => r.length >= firstTotal, { timeoutMs: 120_000 });
    // More input, and the kill lands while it is being processed.
    await produce(
      s.input,
      lines.slice(15_000).map((value, i) => ({ key: `t${i}`, value })),
    );
    await new Promise((r) => setTimeout(r, 400));
    await app.kill();

    const changelog = `${s.applicationId}-counts-changelog`;
    const taskDir = join(stateDir, s.applicationId);
    const checkpointed = new Map<number, number>();
    // The killed instance's state directory lock (.lock) stays beside the task folders.
    for (const task of readdirSync(taskDir).filter((t) => t !== '.lock')) {
      for (const e of await readCheckpoint(join(taskDir, task, '.checkpoint'))) {
        if (e.topic === changelog) checkpointed.set(e.partition, e.offset);
      }
    }
    expect(checkpointed.size).toBe(4);
    // kafkajs' admin reads the last stable offset. The coordinator writes a committed
    // transaction's markers after EndTxn has answered, so a kill right after a commit can leave
    // the stable offset behind the checkpoint for a moment: wait until it has caught up.
    const admin = testKafka().admin();
    await admin.connect();
    let ends = await admin.fetchTopicOffsets(changelog);
    const caughtUp = () => ends.every((e) => Number(e.high) >= (checkpointed.get(e.partition) ?? 0));
    for (let i = 0; i < 100 && !caughtUp(); i++) {
      await new Promise((r) => setTimeout(r, 100));
      ends = await admin.fetchTopicOffsets(changelog);
    }
    await admin.disconnect();
    expect(caughtUp()).toBe(true);

    app.start();
    await waitFor(
      () => app.eventsOfThisRun('restoreEnd').length === 4,
      60_000,
      'restores of 4 changelog partitions',
    );
    const starts = app.eventsOfThisRun('restoreStart');
    for (const end of app.eventsOfThisRun('restoreEnd')) {
      const p = end.partition!;
      const high = Number(ends.find((e) => e.partition === p)!.high);
      const since = high - checkpointed.get(p)!;
      // Never the whole changelog: at most what was written after the checkpoint.
      expect(end.total!).toBeLessThanOrEqual(since);
      expect(starts.find((st) => st.partition === p)?.start).toBe(checkpointed.get(p));
    }
    const full = [...checkpointed.values()].reduce((a, b) => a + b, 0);
    const restored = app.eventsOfThisRun('restoreEnd').reduce((a, e) => a + e.total!, 0);
    expect(restored).toBeLessThan(full);
    const truth = countWords(lines);
    const total = [...truth.values()].reduce((a, b) => a + b, 0);
    expectExact(
      await readTopic(s.output, (r) => r.length >= total, { timeoutMs: 120_000, settleMs: 2000 }),
      truth,
    );
  });
});

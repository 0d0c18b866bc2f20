// Rolling restarts and kill -9 of a 3-instance word count under exactly_once (issue 36), on
// kstreams' own group member (cooperative, static: each instance a groupInstanceId) and, in the
// same run, on kafkajs' eager consumer (KSTREAMS_LEGACY_GROUP=1). Per path:
// - the stores are filled with BENCH_ROLL_KEYS distinct words first, then lines flow at
//   BENCH_ROLL_RATE lines/s while each instance in turn is stopped (SIGTERM) and started again;
// - for every task that stays on an instance that is not restarting, the longest time between two
//   of its commits during a restart (from the instances' debug logs: "committed");
// - p99 end-to-end latency (output record received minus its input line's send time) during the
//   roll against the steady state before it;
// - the same longest gap over the steady window before the roll (the machine's load alone);
// - kill -9 of one instance and an immediate restart with the same id: the time from the new
//   process's spawn to its first commit, with the phases of the start in between (from the debug
//   log: node and the bundle loaded, admin connected, topics checked, JoinGroup and SyncGroup,
//   each task's producer fenced and stores opened and restored, the first fetch);
// - scaling from 2 instances to 3 and back (the case: one static instance leaves the
//   group first, then a dynamic one joins and leaves): the longest gap between two commits of the
//   tasks that stay (cooperative rebalances on kstreams' member, eager ones on kafkajs').
// BENCH_ROLL_STEPS (default roll,kill,scale) runs some of the steps only.
// The apps are core's crash-test fixture (test/runtime/fixtures/word-count-app.ts), bundled.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAndFill, instanceEnv, OutputReader } from './instances/fill.ts';
import { bundleWordCountApp, type Commit, Instance, STARTUP_MILESTONES } from './instances/instance.ts';
import { benchKafka, brokersFromEnv, connectAdmin, deleteAll } from './word-count/cluster.ts';
import { generateLines } from './word-count/corpus.ts';
import { produceAtRate } from './word-count/latency.ts';

const brokers = brokersFromEnv();
const KEYS = Number(process.env.BENCH_ROLL_KEYS ?? 300_000);
const RATE = Number(process.env.BENCH_ROLL_RATE ?? 500);
const PARTITIONS = 6;
const COMMIT_INTERVAL_MS = 100;
const SETTLE_MS = 3_000;

const STEPS = (process.env.BENCH_ROLL_STEPS ?? 'roll,kill,scale').split(',');

/** The tasks some run of these instances committed within [from, to]. */
function committedWithin(instances: Instance[], from: number, to: number): Set<string> {
  const tasks = new Set<string>();
  for (const inst of instances)
    for (const run of inst.runNumbers())
      for (const c of inst.commits(run))
        if (c.at >= from && c.at <= to) for (const t of c.tasks) tasks.add(t);
  return tasks;
}

/**
 * Longest gap between two commits of each task of `commits` within [from, to] (with the commits
 * around), for the tasks that stayed: not committed by any of `others` in the window (a task
 * that moved away and came back to this instance did not stay).
 */
function longestGaps(commits: Commit[], from: number, to: number, others: Instance[]): Map<string, number> {
  const moved = committedWithin(others, from, to);
  const byTask = new Map<string, number[]>();
  for (const c of commits) for (const t of c.tasks) byTask.set(t, [...(byTask.get(t) ?? []), c.at]);
  const gaps = new Map<string, number>();
  for (const [task, times] of byTask) {
    // Only tasks that committed before and after the window stayed on this instance.
    if (moved.has(task) || !(times.some((t) => t < from) && times.some((t) => t > to))) continue;
    let longest = 0;
    for (let i = 1; i < times.length; i++)
      if (times[i]! >= from && times[i - 1]! <= to) longest = Math.max(longest, times[i]! - times[i - 1]!);
    gaps.set(task, longest);
  }
  return gaps;
}

const p99 = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? Number.NaN : s[Math.min(s.length - 1, Math.floor(0.99 * s.length))]!;
};

async function runPath(script: string, legacy: boolean) {
  const tag = `roll-${legacy ? 'legacy' : 'own'}-${Date.now().toString(36)}`;
  const admin = await connectAdmin(brokers);
  const kafka = benchKafka(brokers, tag);
  // The stores hold KEYS distinct words before the roll (300,000 in the figures).
  const topics = await createAndFill(admin, kafka, tag, KEYS, PARTITIONS);
  const { input } = topics;
  const reader = await OutputReader.start(kafka, topics.output, `${tag}-reader`);
  const { latencies } = reader;
  const instances = [0, 1, 2].map(
    (i) =>
      new Instance(
        script,
        instanceEnv(brokers, tag, topics, {
          COMMIT_INTERVAL_MS: String(COMMIT_INTERVAL_MS),
          SESSION_TIMEOUT_MS: '10000',
          GROUP_INSTANCE_ID: `${tag}-${i}`,
          ...(legacy ? { KSTREAMS_LEGACY_GROUP: '1' } : {}),
        }),
      ),
  );
  for (const inst of instances) inst.start();
  // The fill is processed: the output has as many records as the fill has words.
  await reader.awaitCount(topics.words, 300_000, 'the fill');
  const lines = generateLines({ lines: RATE * 120, seed: 5, vocabularySize: KEYS });
  const flowing = produceAtRate(kafka, input, lines, RATE, PARTITIONS);
  const steadyFrom = Date.now() + 2_000;
  await new Promise((r) => setTimeout(r, 10_000));
  const steadyTo = Date.now();
  const windows: Array<{ restarted: number; from: number; to: number }> = [];
  for (const [i, inst] of STEPS.includes('roll') ? instances.entries() : []) {
    const from = Date.now();
    await inst.signal('SIGTERM');
    inst.start();
    await inst.firstCommitAfter(inst.run);
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    windows.push({ restarted: i, from, to: Date.now() });
  }
  const rollTo = Date.now();
  // kill -9 and an immediate restart with the same groupInstanceId.
  let firstCommit = Number.NaN;
  let breakdown: Record<string, number> = {};
  if (STEPS.includes('kill')) {
    const victim = instances[1]!;
    await victim.signal('SIGKILL');
    victim.start();
    const committed = await victim.firstCommit(victim.run);
    firstCommit = committed.at - victim.spawnedAt;
    const seen = new Map(victim.startup(victim.run));
    // The first commit's start and end.
    seen.set('first commit begun', committed.at - committed.ms);
    seen.set('first commit', committed.at);
    breakdown = Object.fromEntries(
      ['node started', ...STARTUP_MILESTONES, 'first commit begun', 'first commit'].map((m) => [
        m,
        (seen.get(m) ?? Number.NaN) - victim.spawnedAt,
      ]),
    );
    await new Promise((r) => setTimeout(r, SETTLE_MS));
  }
  // Scaling from 2 instances to 3 and back (the case): the third static instance leaves
  // the group (SIGUSR2: close with leaveGroup), then a dynamic one joins and leaves. Rebalances
  // that move tasks (cooperative on kstreams' member), while the tasks that stay should go on
  // committing. Measured: the windows of 2 -> 3 and 3 -> 2.
  const scaleWindows: Array<{ from: number; to: number }> = [];
  const everyone = [...instances];
  if (STEPS.includes('scale')) {
    await instances[2]!.signal('SIGUSR2');
    await new Promise((r) => setTimeout(r, 2 * SETTLE_MS));
    const extra = new Instance(script, {
      ...instances[0]!.env,
      STATE_DIR: mkdtempSync(join(tmpdir(), `${tag}-`)),
      GROUP_INSTANCE_ID: '',
    });
    everyone.push(extra);
    let from = Date.now();
    extra.start();
    await extra.firstCommitAfter(1);
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    scaleWindows.push({ from, to: Date.now() });
    from = Date.now();
    await extra.signal('SIGTERM');
    await new Promise((r) => setTimeout(r, 2 * SETTLE_MS));
    scaleWindows.push({ from, to: Date.now() });
  }
  const scaleGaps: number[] = [];
  for (const w of scaleWindows)
    for (const inst of instances) {
      const others = everyone.filter((o) => o !== inst);
      for (const run of inst.runNumbers())
        for (const g of longestGaps(inst.commits(run), w.from, w.to, others).values()) scaleGaps.push(g);
    }
  const gaps: number[] = [];
  for (const w of windows)
    for (const [j, inst] of instances.entries()) {
      if (j === w.restarted) continue;
      // The run of instance j that lived through the window.
      const others = everyone.filter((o) => o !== inst);
      for (const run of inst.runNumbers())
        for (const g of longestGaps(inst.commits(run), w.from, w.to, others).values()) gaps.push(g);
    }
  // The same measure over the steady window: what the machine's load alone gives.
  const steadyGaps: number[] = [];
  for (const inst of instances)
    for (const g of longestGaps(inst.commits(1), steadyFrom, steadyTo, []).values()) steadyGaps.push(g);
  const during = latencies
    .filter((l) => windows.length > 0 && l.at >= windows[0]!.from && l.at <= rollTo)
    .map((l) => l.ms);
  const steady = latencies.filter((l) => l.at >= steadyFrom && l.at <= steadyTo).map((l) => l.ms);
  for (const inst of instances) await inst.signal('SIGTERM');
  await reader.stop();
  await flowing.catch(() => {});
  await deleteAll(admin, [tag], [tag, `${tag}-reader`]);
  await admin.disconnect();
  return {
    path: legacy ? 'kafkajs eager (legacy)' : 'kstreams member (cooperative, static)',
    keptTasks: gaps.length,
    steadyLongestGapMs: Math.max(0, ...steadyGaps),
    longestGapMs: Math.max(0, ...gaps),
    medianLongestGapMs: [...gaps].sort((a, b) => a - b)[Math.floor(gaps.length / 2)] ?? Number.NaN,
    p99SteadyMs: p99(steady),
    p99RollMs: p99(during),
    scaleKeptTasks: scaleGaps.length,
    scaleLongestGapMs: Math.max(0, ...scaleGaps),
    scaleMedianGapMs: [...scaleGaps].sort((a, b) => a - b)[Math.floor(scaleGaps.length / 2)] ?? Number.NaN,
    killRestartToFirstCommitMs: firstCommit,
    killRestartMs: breakdown,
  };
}

const script = await bundleWordCountApp();
console.log(
  `rolling restart: 3 instances, exactly_once, ${PARTITIONS} partitions, ${KEYS} keys, ${RATE} lines/s, commit interval ${COMMIT_INTERVAL_MS} ms (target: longest gap <= ${2 * COMMIT_INTERVAL_MS + 1000} ms)`,
);
const rows = [];
// BENCH_ROLL_PATHS=own (or legacy) runs one path only.
const paths = (process.env.BENCH_ROLL_PATHS ?? 'own,legacy').split(',');
for (const legacy of [false, true].filter((l) => paths.includes(l ? 'legacy' : 'own'))) {
  const row = await runPath(script, legacy);
  console.log(JSON.stringify(row));
  rows.push(row);
}
console.table(rows.map(({ killRestartMs: _, ...row }) => row));
// The kill -9 restart's phases, ms after the new process's spawn, per path.
console.table(Object.fromEntries(rows.map((r) => [r.path, r.killRestartMs])));
process.exit(0);

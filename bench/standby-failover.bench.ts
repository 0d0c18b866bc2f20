// Failover of a stateful instance with and without standby replicas (issue 37): three word-count
// instances (core's crash-test app, bundled, each its own process) under exactly_once, their stores
// filled with BENCH_FAILOVER_KEYS distinct words (1,000,000; `smoke`: 50,000), then lines flowing
// at BENCH_FAILOVER_RATE lines/s so every task has work and commits. The instance holding the most
// state (the sum of its stateful tasks' changelog end offsets) is killed (SIGKILL), and per task it
// held: the time from the kill to the first commit of the task on another instance, from that
// instance's new assignment to the task running (its restore) and to its first commit, and the
// changelog records restored (the app's restore listener). One case per numStandbyReplicas in
// BENCH_FAILOVER_STANDBYS ("0,1"), in the same run. A build that refuses numStandbyReplicas > 0
// (a ConfigError) gets the row "standbys not available on this build" instead of its figures.
// The kill is noticed by the group after the session timeout (BENCH_FAILOVER_SESSION_MS, 6,000:
// the broker's minimum): the time from the kill to the new assignment is mostly that wait.
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { resolveStreamsConfig } from '../packages/core/src/config/streams-config.ts';
import { ConfigError } from '../packages/core/src/index.ts';
import { wordCount } from '../packages/core/test/runtime/fixtures/word-count-topology.ts';
import { createAndFill, instanceEnv, OutputReader } from './instances/fill.ts';
import { bundleWordCountApp, Instance, waitFor } from './instances/instance.ts';
import { type CaseRow, type MovedTask, writeResults } from './standby-failover/report.ts';
import { benchKafka, brokersFromEnv, connectAdmin, deleteAll, endOffsets } from './word-count/cluster.ts';
import { generateLines } from './word-count/corpus.ts';
import { produceAtRate } from './word-count/latency.ts';

const brokers = brokersFromEnv();
const keysSetting = process.env.BENCH_FAILOVER_KEYS ?? '1000000';
const KEYS = keysSetting === 'smoke' ? 50_000 : Number(keysSetting);
const RATE = Number(process.env.BENCH_FAILOVER_RATE ?? 200);
const SESSION_TIMEOUT_MS = Number(process.env.BENCH_FAILOVER_SESSION_MS ?? 6_000);
const STANDBYS = (process.env.BENCH_FAILOVER_STANDBYS ?? '0,1').split(',').map(Number);
const PARTITIONS = 6;
const COMMIT_INTERVAL_MS = 100;
/** Lines flowing before the kill: every task commits, standbys catch up. */
const STEADY_MS = 5_000;
/** How long the moved tasks may take to commit elsewhere after the kill. */
const FAILOVER_TIMEOUT_MS = SESSION_TIMEOUT_MS + 120_000;
if (!Number.isInteger(KEYS) || KEYS < 10)
  throw new Error(`BENCH_FAILOVER_KEYS must be a whole number >= 10 or "smoke", got "${keysSetting}"`);
if (STANDBYS.some((n) => !Number.isInteger(n) || n < 0))
  throw new Error(`BENCH_FAILOVER_STANDBYS must list whole numbers >= 0, e.g. "0,1"; got "${STANDBYS}"`);

/** The ConfigError's message if this build refuses `numStandbyReplicas` (checked before any work). */
function refusal(numStandbyReplicas: number): string | undefined {
  try {
    resolveStreamsConfig({ applicationId: 'check', brokers, numStandbyReplicas });
    return undefined;
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
}

/** Rejects as soon as an instance exits on its own (a crash, or a ConfigError reported on stdout). */
function watchExits(instances: Instance[]): { failed: Promise<never>; stop: () => void } {
  let stopped = false;
  const failed = new Promise<never>((_, reject) => {
    for (const [i, inst] of instances.entries())
      void inst.exited?.then((code) => {
        if (stopped) return;
        const configError = inst.events().find((e) => e.event === 'configError');
        reject(
          configError
            ? new ConfigError(String(configError.message))
            : new Error(`instance ${i} exited with code ${code} before the measurement ended`),
        );
      });
  });
  failed.catch(() => {});
  return { failed, stop: () => (stopped = true) };
}

async function runCase(script: string, standbys: number): Promise<CaseRow> {
  const refused = refusal(standbys);
  if (refused !== undefined) return { standbys, unavailable: refused };
  const tag = `failover-${standbys}-${Date.now().toString(36)}`;
  const admin = await connectAdmin(brokers);
  const kafka = benchKafka(brokers, tag);
  const stopFlow = new AbortController();
  let flowing: Promise<void> = Promise.resolve();
  let instances: Instance[] = [];
  let reader: OutputReader | undefined;
  try {
    const topics = await createAndFill(admin, kafka, tag, KEYS, PARTITIONS);
    reader = await OutputReader.start(kafka, topics.output, `${tag}-reader`);
    instances = [0, 1, 2].map(
      () =>
        new Instance(
          script,
          instanceEnv(brokers, tag, topics, {
            COMMIT_INTERVAL_MS: String(COMMIT_INTERVAL_MS),
            SESSION_TIMEOUT_MS: String(SESSION_TIMEOUT_MS),
            NUM_STANDBY_REPLICAS: String(standbys),
          }),
        ),
    );
    const filledFrom = Date.now();
    for (const inst of instances) inst.start();
    const exits = watchExits(instances);
    await Promise.race([exits.failed, reader.awaitCount(topics.words, Math.max(300_000, KEYS), 'the fill')]);
    const fillSeconds = (Date.now() - filledFrom) / 1000;
    const lines = generateLines({ lines: RATE * 600, seed: 37, vocabularySize: KEYS });
    flowing = produceAtRate(kafka, topics.input, lines, RATE, PARTITIONS, stopFlow.signal);
    await Promise.race([exits.failed, new Promise((r) => setTimeout(r, STEADY_MS))]);

    // The state each instance holds: its stateful tasks' changelog end offsets (every fill word
    // was a new key, so about the number of keys).
    const stateful = wordCount(topics.input, topics.output)
      .subtopologies(tag)
      .flatMap((s) =>
        s.stores.flatMap((st) => (st.changelogTopic ? [{ sub: s.id, topic: st.changelogTopic }] : [])),
      );
    const records = new Map<string, number>();
    for (const { sub, topic } of stateful)
      for (const [p, end] of await endOffsets(admin, topic))
        records.set(`${sub}_${p}`, (records.get(`${sub}_${p}`) ?? 0) + end);
    const held = instances.map((inst) => inst.currentTasks().reduce((n, t) => n + (records.get(t) ?? 0), 0));
    const victimIndex = held.indexOf(Math.max(...held));
    const victim = instances[victimIndex]!;
    const victimTasks = victim.currentTasks();
    const survivors = instances.filter((inst) => inst !== victim);

    const killedAt = Date.now();
    exits.stop();
    await victim.signal('SIGKILL');
    const survivorExits = watchExits(survivors);
    // Each task of the victim: the survivor whose commit first includes it after the kill.
    const firstCommitElsewhere = (task: string) => {
      for (const inst of survivors) {
        const c = inst.commits().find((c) => c.at > killedAt && c.tasks.includes(task));
        if (c) return { inst, at: c.at };
      }
      return undefined;
    };
    await Promise.race([
      survivorExits.failed,
      waitFor(
        () => (victimTasks.every((t) => firstCommitElsewhere(t)) ? true : undefined),
        FAILOVER_TIMEOUT_MS,
        `the first commits of ${victimTasks.join(', ')} on the other instances`,
      ),
    ]);
    survivorExits.stop();
    const moved: MovedTask[] = victimTasks.map((task) => {
      const { inst, at: committedAt } = firstCommitElsewhere(task)!;
      const assignedAt =
        inst.assignments().find((a) => a.at > killedAt && a.tasks.includes(task))?.at ?? Number.NaN;
      const runningAt = inst.runningAt(task, killedAt) ?? Number.NaN;
      const restored = inst
        .events()
        .filter((e) => e.event === 'restoreEnd' && e.at > killedAt)
        .filter((e) => stateful.some((s) => s.topic === e.topic && `${s.sub}_${e.partition}` === task))
        .reduce((n, e) => n + Number(e.total), 0);
      return {
        task,
        to: instances.indexOf(inst),
        stateRecords: records.get(task) ?? 0,
        restored,
        killToAssignmentMs: assignedAt - killedAt,
        assignmentToRunningMs: runningAt - assignedAt,
        assignmentToCommitMs: committedAt - assignedAt,
        killToCommitMs: committedAt - killedAt,
      };
    });
    return {
      standbys,
      fillSeconds,
      victim: victimIndex,
      victimState: held[victimIndex]!,
      moved,
    };
  } catch (error) {
    if (error instanceof ConfigError) return { standbys, unavailable: error.message };
    throw error;
  } finally {
    stopFlow.abort();
    await Promise.all(instances.map((inst) => inst.signal('SIGTERM')));
    await reader?.stop();
    await flowing.catch(() => {});
    await deleteAll(admin, [tag], [tag, `${tag}-reader`]);
    await admin.disconnect();
  }
}

const script = await bundleWordCountApp();
console.log(
  `standby failover: 3 instances, exactly_once, ${PARTITIONS} partitions, ${KEYS} keys, ${RATE} lines/s, commit interval ${COMMIT_INTERVAL_MS} ms, session timeout ${SESSION_TIMEOUT_MS} ms, numStandbyReplicas ${STANDBYS.join(' and ')} (target with a standby: assignment -> first commit <= 2,000 ms)`,
);
const load = [loadavg()];
const rows: CaseRow[] = [];
for (const standbys of STANDBYS) {
  const row = await runCase(script, standbys);
  load.push(loadavg());
  console.log(JSON.stringify(row));
  rows.push(row);
}
const code = execFileSync('git', ['describe', '--always', '--dirty'], { encoding: 'utf8' }).trim();
const file = writeResults(rows, {
  date: new Date().toISOString().slice(0, 10),
  code,
  keys: KEYS,
  rate: RATE,
  partitions: PARTITIONS,
  sessionTimeoutMs: SESSION_TIMEOUT_MS,
  loadAverages: load.map((l) => l[0]!),
});
console.log(`written: ${file}`);
process.exit(0);

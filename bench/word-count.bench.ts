// Word-count benchmark: a hand-written kafkajs app (and the same on @platformatic/kafka, the other
// client's ceiling), kstreams and Java Kafka Streams (issue 18),
// each under at_least_once and exactly_once, kstreams and Java each with the record cache at its
// default and off, one after the other on the same pre-loaded input, each in its own process.
// Reports throughput, CPU and peak RSS per app and the ratios in word-count/variants.ts, and
// writes them to bench/results/word-count.md and .svg.
//
// Timing: from the moment the app has joined its group(s) and is ready to fetch (kstreams and
// Java: the first RUNNING state; kafkajs: both consumers joined) until it is done (see
// word-count/progress.ts: committed offsets under exactly_once, the output's final counts or,
// with the cache on, the app's processed-record count under at_least_once); startup (connects,
// internal topic creation, group join, task initialisation) is excluded equally from the ratios
// and shown in its own column. Topic creation and pre-loading are not timed.
//
// The Java variants need java, javac and mvn (as the differential tests); without them they are
// skipped with a message.
//
// Environment: BENCH_LINES (default 100000), BENCH_SEED (42), BENCH_TEXT (a text file whose
// non-empty lines are used instead of generated ones), BENCH_APPS (comma list of the kinds in
// word-count/protocol.ts), BENCH_PROFILE (comma list of Node apps to run with --cpu-prof; the
// profile is summarised after the table), BENCH_TIMEOUT_S (per app, default 240),
// BENCH_LATENCY_S (seconds of input at half the measured rate for the latency runs, default 20;
// 0 = none, see word-count/latency.ts), BENCH_KAFKAJS_SEND_CHUNK (messages per sendBatch call in the hand-written app, default 1000; 0 =
// one call per consumer batch, see word-count/handwritten.ts), BENCH_PLATFORMATIC_SEND_CHUNK (the
// same for the @platformatic/kafka app, default: as the kafkajs app, so that both do the same
// sends), BENCH_ROUNDS (default 1: every app that many times, the apps interleaved round after
// round; each app is then reported by its median round, and each comparison's throughput ratio
// is printed per round, see word-count/rounds.ts), KAFKA_BROKERS.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { KAFKA_VERSION } from '../scripts/kafka/broker.ts';
import {
  benchKafka,
  brokersFromEnv,
  connectAdmin,
  createTopics,
  deleteAll,
  preload,
} from './word-count/cluster.ts';
import { countWords, generateLines } from './word-count/corpus.ts';
import { formatCpuProfile, summariseCpuProfile } from './word-count/cpu-profile.ts';
import { prepareJavaApp } from './word-count/java-app.ts';
import { type Latency, measureLatency } from './word-count/latency.ts';
import { OutputTracker } from './word-count/output-tracker.ts';
import { committedThroughEnd, outputComplete, processedThrough } from './word-count/progress.ts';
import { APP_KINDS, type AppKind, type ChildArgs } from './word-count/protocol.ts';
import { formatReport, summarise } from './word-count/report.ts';
import { writeResults } from './word-count/results.ts';
import {
  formatRoundRatios,
  medianRounds,
  type RoundResult,
  roundRatios,
  roundsOf,
} from './word-count/rounds.ts';
import { type AppResult, type Launcher, runApp } from './word-count/run-app.ts';
import { isHandWritten, variantOf } from './word-count/variants.ts';
import { verifyOutput } from './word-count/verify.ts';

const PARTITIONS = 4;

function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return n;
}

function envApps(name: string, fallback: readonly AppKind[]): AppKind[] {
  const raw = process.env[name];
  if (raw === undefined) return [...fallback];
  const apps = raw
    .split(',')
    .map((a) => a.trim())
    .filter(Boolean);
  const unknown = apps.filter((a) => !(APP_KINDS as readonly string[]).includes(a));
  if (unknown.length > 0) {
    throw new Error(
      `${name}: unknown app(s) ${unknown.join(', ')}; use a comma list of ${APP_KINDS.join(', ')}`,
    );
  }
  return apps as AppKind[];
}

/** The code measured, so that a table can be matched to a commit. */
function codeVersion(): string {
  try {
    const git = (...args: string[]) => execFileSync('git', args, { encoding: 'utf8' }).trim();
    const dirty = git('status', '--porcelain', '--', 'packages').length > 0;
    return `${git('rev-parse', '--short', 'HEAD')}${dirty ? ' + uncommitted changes in packages/' : ''}`;
  } catch {
    return 'unknown (no git)';
  }
}

function inputLines(count: number, seed: number): { lines: string[]; source: string } {
  const file = process.env.BENCH_TEXT;
  if (!file)
    return { lines: generateLines({ lines: count, seed }), source: `generated (Zipf, seed ${seed})` };
  const text = readFileSync(file, 'utf8')
    .split(/\r?\n/)
    .filter((l) => l.trim().length > 0);
  if (text.length === 0) throw new Error(`BENCH_TEXT=${file} has no non-empty lines`);
  const lines = Array.from({ length: count }, (_, i) => text[i % text.length]!);
  return { lines, source: file };
}

const lineCount = envInt('BENCH_LINES', 100_000);
const seed = envInt('BENCH_SEED', 42);
const apps = envApps('BENCH_APPS', APP_KINDS);
const profiled = new Set(envApps('BENCH_PROFILE', []));
const timeoutMs = envInt('BENCH_TIMEOUT_S', 240) * 1000;
const rounds = envInt('BENCH_ROUNDS', 1);
const latencySeconds = process.env.BENCH_LATENCY_S === '0' ? 0 : envInt('BENCH_LATENCY_S', 20);
const chunkFromEnv = (name: string, fallback: number) =>
  process.env[name] === '0' ? 0 : envInt(name, fallback);
const sendChunk = chunkFromEnv('BENCH_KAFKAJS_SEND_CHUNK', 1000);
const platformaticChunk = chunkFromEnv('BENCH_PLATFORMATIC_SEND_CHUNK', sendChunk);
const describeChunk = (n: number) => (n > 0 ? `sends of ${n}` : 'one send per consumer batch');
const brokers = brokersFromEnv();
const runId = `wcbench-${Date.now().toString(36)}-${randomBytes(2).toString('hex')}`;

const { lines, source } = inputLines(lineCount, seed);
const expected = countWords(lines);
const byFrequency = [...expected.counts].sort((a, b) => b[1] - a[1]);
const sampleWords = [0, Math.floor(byFrequency.length / 10), byFrequency.length - 1].map(
  (i) => byFrequency[i]![0],
);

// Built before anything is timed: the first build fetches Kafka's jars and compiles.
let javaLaunch: Launcher | undefined;
let javaMissing: string | undefined;
if (apps.some((kind) => variantOf(kind).runtime === 'java')) {
  const java = prepareJavaApp();
  if ('launch' in java) javaLaunch = java.launch;
  else {
    javaMissing = java.unavailable;
    console.log(`Skipping the Java Kafka Streams variants: ${javaMissing}.`);
  }
}

const loadAverage = loadavg();
function appArgs(kind: AppKind, appId: string, inputTopic: string): ChildArgs {
  const variant = variantOf(kind);
  return {
    kind,
    brokers,
    inputTopic,
    outputTopic: `${appId}-output`,
    appId,
    repartitionTopic: `${appId}-words`,
    stateDir: join(stateRoot, appId),
    sendChunk: kind === 'platformatic' ? platformaticChunk : sendChunk,
    statestoreCacheMaxBytes: variant.runtime === 'kstreams' ? variant.cacheMaxBytes : undefined,
  };
}

const admin = await connectAdmin(brokers);
const kafka = benchKafka(brokers, 'wc-bench');
const groups: string[] = [];
const stateRoot = await mkdtemp(join(tmpdir(), 'wc-bench-'));
const results: AppResult[] = [];
const allResults: RoundResult[] = [];
let failed = false;
try {
  const inputTopic = `${runId}-input`;
  await createTopics(admin, [inputTopic], PARTITIONS);
  const loadStart = performance.now();
  await preload(kafka, inputTopic, lines, PARTITIONS);
  console.log(
    `Input: ${inputTopic}, ${lineCount} lines, ${expected.totalWords} words, ${expected.counts.size} distinct, ` +
      `${PARTITIONS} partitions, from ${source}; pre-loaded in ${((performance.now() - loadStart) / 1000).toFixed(1)} s. ` +
      `Code: ${codeVersion()}. kafkajs app: ${describeChunk(sendChunk)}; platformatic app: ${describeChunk(platformaticChunk)}.`,
  );

  for (const [round, kind] of roundsOf(apps, rounds)) {
    const variant = variantOf(kind);
    if (variant.runtime === 'java' && javaLaunch === undefined) {
      if (round === 0) allResults.push({ result: { kind, skipped: javaMissing }, round });
      continue;
    }
    const appId = rounds > 1 ? `${runId}-${kind}-r${round + 1}` : `${runId}-${kind}`;
    const outputTopic = `${appId}-output`;
    const repartitionTopic = `${appId}-words`;
    await createTopics(
      admin,
      isHandWritten(kind) ? [outputTopic, repartitionTopic] : [outputTopic],
      PARTITIONS,
    );
    groups.push(...(isHandWritten(kind) ? [`${appId}-split`, `${appId}-count`] : [appId]));
    const tracker = new OutputTracker({
      kafka,
      topic: outputTopic,
      groupId: `${appId}-verify`,
      expected: expected.counts,
      transactional: variant.exactlyOnce,
    });
    groups.push(`${appId}-verify`);
    const result = await runApp({
      args: appArgs(kind, appId, inputTopic),
      progress: (ready, processed) =>
        variant.exactlyOnce
          ? committedThroughEnd(admin, ready.groupId, inputTopic, ready.repartitionTopics)
          : ready.cache === 'on'
            ? processedThrough(processed, lineCount + expected.totalWords)
            : outputComplete(admin, tracker, outputTopic, expected.totalWords),
      timeoutMs,
      cpuProfileDir: profiled.has(kind) ? join(stateRoot, `${kind}-profile`) : undefined,
      launch: variant.runtime === 'java' ? javaLaunch : undefined,
      instances: variant.instances,
    });
    if (result.error === undefined && result.skipped === undefined) {
      result.verification = await verifyOutput({
        admin,
        tracker,
        outputTopic,
        totalWords: expected.totalWords,
        sampleWords,
        exact: variant.exactlyOnce,
        cached: result.cache === 'on',
      });
    }
    await tracker.close();
    const v = result.verification;
    const outcome = result.skipped
      ? `skipped: ${result.skipped}`
      : result.error
        ? `FAILED: ${result.error}`
        : `done in ${((result.doneAt! - result.startedAt!) / 1000).toFixed(1)} s`;
    console.log(
      `${kind}: ${outcome}${v ? `; output ${v.ok ? 'verified' : `WRONG (${v.problems.join('; ')})`}` : ''}`,
    );
    if (result.skipped === undefined && (result.error || !v?.ok)) failed = true;
    allResults.push({ result, round });
  }
  results.push(...medianRounds(allResults));
  const perRound = rounds > 1 ? roundRatios(allResults, rounds, lineCount, expected.totalWords) : [];
  if (perRound.length > 0) console.log(`\n${formatRoundRatios(perRound, rounds)}`);

  // Latency at half of each app's measured rate, after all throughput runs: a fresh instance each.
  const latencies = new Map<AppKind, Latency | { error: string }>();
  for (const r of latencySeconds > 0 ? results : []) {
    // One process per app here: the latency of a single instance at half its rate.
    const { instances } = variantOf(r.kind);
    if (isHandWritten(r.kind) || r.kind === 'kstreams-alo-nometrics' || instances > 1 || !r.verification?.ok)
      continue;
    const appId = `${runId}-lat-${r.kind}`;
    const latency = await measureLatency({
      admin,
      kafka,
      args: appArgs(r.kind, appId, `${appId}-input`),
      launch: variantOf(r.kind).runtime === 'java' ? javaLaunch : undefined,
      lines,
      linesPerS: lineCount / ((r.doneAt! - r.runningAt!) / 1000) / 2,
      seconds: latencySeconds,
      numPartitions: PARTITIONS,
      groups,
    });
    latencies.set(r.kind, latency);
    console.log(
      `${r.kind} latency: ${'error' in latency ? `FAILED: ${latency.error}` : `p50 ${latency.p50Ms} ms, p99 ${latency.p99Ms} ms over ${latency.records} output records at ${Math.round(latency.linesPerS)} lines/s`}`,
    );
  }

  const summary = summarise(results, lineCount, expected.totalWords, latencies);
  console.log(
    `\n${formatReport({ summary, results, lineCount, totalWords: expected.totalWords, sampleWords, expected })}`,
  );
  const written = writeResults(summary, {
    date: new Date().toISOString().slice(0, 16).replace('T', ' '),
    code: codeVersion(),
    kafkaVersion: KAFKA_VERSION,
    lineCount,
    totalWords: expected.totalWords,
    distinctWords: expected.counts.size,
    partitions: PARTITIONS,
    source,
    cpus: cpus().length,
    memoryGb: Math.round(totalmem() / 2 ** 30),
    loadAverage,
    latencySeconds,
    rounds,
    roundRatios: perRound,
  });
  console.log(`Wrote ${written.join(' and ')}.`);
  for (const r of results) {
    if (!r.cpuProfile) continue;
    console.log(
      `\n${formatCpuProfile(`${r.kind} (${r.cpuProfile})`, await summariseCpuProfile(r.cpuProfile))}`,
    );
  }
} catch (error) {
  failed = true;
  console.error(error);
} finally {
  const deleted = await deleteAll(admin, [runId], groups).catch((error: Error) => {
    console.error(`cleaning up: ${error.message}`);
    return [];
  });
  console.log(`\nDeleted ${deleted.length} topics (${runId}-*) and the benchmark's consumer groups.`);
  await admin.disconnect();
  if (profiled.size === 0) await rm(stateRoot, { recursive: true, force: true });
  else console.log(`CPU profiles kept in ${stateRoot}.`);
}
process.exit(failed ? 1 : 0);

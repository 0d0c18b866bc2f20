// Word-count benchmark: a hand-written kafkajs app, kstreams under at_least_once and kstreams
// under exactly_once, one after the other on the same pre-loaded input, each in its own process.
// Reports throughput, CPU and peak RSS per app and the two ratios that have targets:
// kstreams-alo / kafkajs >= 0.7, kstreams-eos / kstreams-alo >= 0.6, and kstreams-alo (metrics at
// info) / kstreams-alo-nometrics (metrics off) >= 0.97.
//
// Timing: from the moment the app has joined its group(s) and is ready to fetch (kstreams: the
// first RUNNING state; kafkajs: both consumers joined) until its output is complete; startup
// (connects, internal topic creation, group join, task initialisation) is excluded equally from
// the ratios and shown in its own column. Topic creation and pre-loading are not timed.
//
// Environment: BENCH_LINES (default 100000), BENCH_SEED (42), BENCH_TEXT (a text file whose
// non-empty lines are used instead of generated ones), BENCH_APPS (comma list of kafkajs,
// kstreams-alo-nometrics, kstreams-alo, kstreams-eos), BENCH_PROFILE (comma list of apps to run with --cpu-prof; the
// profile is summarised after the table), BENCH_TIMEOUT_S (per app, default 240),
// BENCH_KAFKAJS_SEND_CHUNK (messages per sendBatch call in the hand-written app, default 1000; 0 =
// one call per consumer batch, see word-count/handwritten.ts), KAFKA_BROKERS.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
import { OutputTracker } from './word-count/output-tracker.ts';
import { committedThroughEnd, outputComplete } from './word-count/progress.ts';
import { APP_KINDS, type AppKind } from './word-count/protocol.ts';
import { formatReport } from './word-count/report.ts';
import { type AppResult, runApp } from './word-count/run-app.ts';
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
const sendChunk = process.env.BENCH_KAFKAJS_SEND_CHUNK === '0' ? 0 : envInt('BENCH_KAFKAJS_SEND_CHUNK', 1000);
const brokers = brokersFromEnv();
const runId = `wcbench-${Date.now().toString(36)}-${randomBytes(2).toString('hex')}`;

const { lines, source } = inputLines(lineCount, seed);
const expected = countWords(lines);
const byFrequency = [...expected.counts].sort((a, b) => b[1] - a[1]);
const sampleWords = [0, Math.floor(byFrequency.length / 10), byFrequency.length - 1].map(
  (i) => byFrequency[i]![0],
);

const admin = await connectAdmin(brokers);
const kafka = benchKafka(brokers, 'wc-bench');
const groups: string[] = [];
const stateRoot = await mkdtemp(join(tmpdir(), 'wc-bench-'));
const results: AppResult[] = [];
let failed = false;
try {
  const inputTopic = `${runId}-input`;
  await createTopics(admin, [inputTopic], PARTITIONS);
  const loadStart = performance.now();
  await preload(kafka, inputTopic, lines, PARTITIONS);
  console.log(
    `Input: ${inputTopic}, ${lineCount} lines, ${expected.totalWords} words, ${expected.counts.size} distinct, ` +
      `${PARTITIONS} partitions, from ${source}; pre-loaded in ${((performance.now() - loadStart) / 1000).toFixed(1)} s. ` +
      `Code: ${codeVersion()}. kafkajs app: ${sendChunk > 0 ? `sendBatch slices of ${sendChunk}` : 'one sendBatch per consumer batch'}.`,
  );

  for (const kind of apps) {
    const appId = `${runId}-${kind}`;
    const outputTopic = `${appId}-output`;
    const repartitionTopic = `${appId}-words`;
    await createTopics(
      admin,
      kind === 'kafkajs' ? [outputTopic, repartitionTopic] : [outputTopic],
      PARTITIONS,
    );
    groups.push(...(kind === 'kafkajs' ? [`${appId}-split`, `${appId}-count`] : [appId]));
    const tracker = new OutputTracker({
      kafka,
      topic: outputTopic,
      groupId: `${appId}-verify`,
      expected: expected.counts,
      transactional: kind === 'kstreams-eos',
    });
    groups.push(`${appId}-verify`);
    const result = await runApp({
      args: {
        kind,
        brokers,
        inputTopic,
        outputTopic,
        appId,
        repartitionTopic,
        stateDir: join(stateRoot, kind),
        sendChunk,
      },
      progress: (ready) =>
        kind === 'kstreams-eos'
          ? committedThroughEnd(admin, ready.groupId, inputTopic, ready.repartitionTopics)
          : outputComplete(admin, tracker, outputTopic, expected.totalWords),
      timeoutMs,
      cpuProfileDir: profiled.has(kind) ? join(stateRoot, `${kind}-profile`) : undefined,
    });
    if (result.error === undefined) {
      result.verification = await verifyOutput({
        admin,
        tracker,
        outputTopic,
        totalWords: expected.totalWords,
        sampleWords,
        exact: kind === 'kstreams-eos',
      });
    }
    await tracker.close();
    const v = result.verification;
    console.log(
      `${kind}: ${result.error ? `FAILED: ${result.error}` : `done in ${((result.doneAt! - result.startedAt!) / 1000).toFixed(1)} s`}` +
        (v ? `; output ${v.ok ? 'verified' : `WRONG (${v.problems.join('; ')})`}` : ''),
    );
    if (result.error || !v?.ok) failed = true;
    results.push(result);
  }

  console.log(
    `\n${formatReport({ results, lineCount, totalWords: expected.totalWords, sampleWords, expected })}`,
  );
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

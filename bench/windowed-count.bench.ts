// Windowed-count benchmark (issue 12): the same keyed input counted per key (`count`) and per key
// and 1-minute tumbling window (`windowed-count`), kstreams under at_least_once, one app after the
// other in its own process (bench/word-count/run-app.ts). Targets: windowed / plain throughput
// >= 0.7, and the windowed app's peak RSS <= 300 MB although it creates BENCH_KEYS x BENCH_MINUTES
// windows (5M by default): retention (size + grace = 1 minute) drops old segments as stream time
// moves on, so the store holds about two minutes of windows at any time.
//
// Input: every minute of stream time, each of BENCH_KEYS keys once, in a seeded random order,
// timestamps rising through the minute; keyed, so that a key stays on its partition.
// Environment: BENCH_KEYS (100000), BENCH_MINUTES (50), BENCH_TIMEOUT_S (per app, 600), KAFKA_BROKERS.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Kafka, Partitioners } from 'kafkajs';
import { WINDOW_MS } from './windowed-count/topologies.ts';
import {
  benchKafka,
  brokersFromEnv,
  connectAdmin,
  createTopics,
  deleteAll,
  endOffsets,
} from './word-count/cluster.ts';
import { committedThroughEnd } from './word-count/progress.ts';
import { type AppResult, runApp } from './word-count/run-app.ts';

const PARTITIONS = 4;
const TARGET_RATIO = 0.7;
const TARGET_RSS_MB = 300;

function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return n;
}

const keys = envInt('BENCH_KEYS', 100_000);
const minutes = envInt('BENCH_MINUTES', 50);
const timeoutMs = envInt('BENCH_TIMEOUT_S', 600) * 1000;
const total = keys * minutes;
const brokers = brokersFromEnv();
const runId = `wwbench-${Date.now().toString(36)}-${randomBytes(2).toString('hex')}`;

/** A seeded permutation (xorshift32 + Fisher-Yates), so that runs see the same input. */
function permutation(n: number, seed: number): Uint32Array {
  const order = new Uint32Array(n).map((_, i) => i);
  let x = seed >>> 0 || 1;
  for (let i = n - 1; i > 0; i--) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    const j = (x >>> 0) % (i + 1);
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
}

/**
 * Sends one chunk at a time: the windows have no grace, so the input must be in timestamp order on
 * each partition. kafkajs does not keep the order of concurrent send() calls (each awaits metadata
 * and its broker before its request is written, and retries on its own): with 4 in flight, a
 * minute's last chunk sometimes landed after the next minute's first one, and the app rightly
 * dropped those records as late (10,000 of 1M, 55,000 of 5M), so the output never reached the total.
 */
async function preloadKeyed(kafka: Kafka, topic: string, base: number): Promise<void> {
  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  const CHUNK = 20_000;
  try {
    for (let m = 0; m < minutes; m++) {
      const order = permutation(keys, 42 + m);
      for (let i = 0; i < keys; i += CHUNK) {
        const messages = [];
        for (let j = i; j < Math.min(i + CHUNK, keys); j++) {
          const timestamp = base + m * WINDOW_MS + Math.floor((j * WINDOW_MS) / keys);
          messages.push({ key: `user-${order[j]}`, value: 'v', timestamp: String(timestamp) });
        }
        await producer.send({ topic, messages, acks: -1 });
      }
    }
  } finally {
    await producer.disconnect();
  }
}

/**
 * Both apps commit every second: the record cache (on by default) sends its counts at a commit,
 * so an app is done when its committed offsets reach the input's end; the same short interval
 * keeps that from rounding one app's time up by a long at_least_once interval more than the other's.
 */
const COMMIT_INTERVAL_MS = 1_000;

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const admin = await connectAdmin(brokers);
const kafka = benchKafka(brokers, 'ww-bench');
const stateRoot = await mkdtemp(join(tmpdir(), 'ww-bench-'));
const groups: string[] = [];
const results: Array<{ name: string; result: AppResult; outputs: number }> = [];
let failed = false;
try {
  const inputTopic = `${runId}-input`;
  await createTopics(admin, [inputTopic], PARTITIONS);
  const loadStart = performance.now();
  const base = Math.floor(Date.now() / WINDOW_MS) * WINDOW_MS - minutes * WINDOW_MS;
  await preloadKeyed(kafka, inputTopic, base);
  console.log(
    `Input: ${inputTopic}, ${fmt(total)} records (${fmt(keys)} keys x ${minutes} minutes, so ${fmt(total)} ` +
      `1-minute windows), ${PARTITIONS} partitions; pre-loaded in ${((performance.now() - loadStart) / 1000).toFixed(1)} s.`,
  );
  for (const name of ['count', 'windowed-count'] as const) {
    const appId = `${runId}-${name}`;
    const outputTopic = `${appId}-output`;
    await createTopics(admin, [outputTopic], PARTITIONS);
    groups.push(appId);
    const result = await runApp({
      args: {
        kind: 'kstreams-alo',
        topology: name,
        brokers,
        inputTopic,
        outputTopic,
        appId,
        repartitionTopic: '',
        stateDir: join(stateRoot, name),
        sendChunk: 0,
        commitIntervalMs: COMMIT_INTERVAL_MS,
      },
      progress: () => committedThroughEnd(admin, appId, inputTopic, []),
      timeoutMs,
    });
    let outputs = 0;
    for (const end of (await endOffsets(admin, outputTopic)).values()) outputs += end;
    // A clean at_least_once run processes each record once: more would mean a rebalance replayed
    // some. The cache sends at most one record per input record (fewer when a key repeats between commits).
    const ok = result.error === undefined && result.processed === total && outputs > 0 && outputs <= total;
    console.log(
      `${name}: ${result.error ? `FAILED: ${result.error}` : `done in ${((result.doneAt! - result.runningAt!) / 1000).toFixed(1)} s`}; ` +
        `processed ${result.processed ?? '?'} (dropped ${result.dropped ?? '?'}) and wrote ${outputs} records for ${total} input records${ok ? '' : ' (WRONG)'}`,
    );
    if (!ok) failed = true;
    results.push({ name, result, outputs });
  }

  console.log('\napp             process s  records/s  CPU s  records/CPU-s  peak RSS MB');
  const rate = (r: AppResult) => total / ((r.doneAt! - r.runningAt!) / 1000);
  const perCpu = (r: AppResult) => total / ((r.cpuUs ?? 0) / 1e6);
  for (const { name, result: r } of results) {
    if (r.doneAt === undefined) continue;
    console.log(
      `${name.padEnd(14)} ${((r.doneAt - r.runningAt!) / 1000).toFixed(2).padStart(10)} ${fmt(rate(r)).padStart(10)} ` +
        `${((r.cpuUs ?? 0) / 1e6).toFixed(1).padStart(6)} ${fmt(perCpu(r)).padStart(14)} ${fmt((r.maxRssKb ?? 0) / 1024).padStart(12)}`,
    );
  }
  const [plain, windowed] = results.map((r) => r.result);
  if (plain?.doneAt !== undefined && windowed?.doneAt !== undefined) {
    const ratio = rate(windowed) / rate(plain);
    const rss = (windowed.maxRssKb ?? 0) / 1024;
    console.log(
      `windowed-count / count throughput: ${ratio.toFixed(2)} (target >= ${TARGET_RATIO}: ${ratio >= TARGET_RATIO ? 'met' : 'NOT met'}); ` +
        `CPU efficiency ${(perCpu(windowed) / perCpu(plain)).toFixed(2)}`,
    );
    console.log(
      `windowed-count peak RSS with ${fmt(total)} windows: ${fmt(rss)} MB (target <= ${TARGET_RSS_MB}: ${rss <= TARGET_RSS_MB ? 'met' : 'NOT met'}); ` +
        `count: ${fmt((plain.maxRssKb ?? 0) / 1024)} MB`,
    );
  }
} catch (error) {
  failed = true;
  console.error(error);
} finally {
  const deleted = await deleteAll(admin, [runId], groups).catch(() => []);
  console.log(`\nDeleted ${deleted.length} topics (${runId}-*) and the benchmark's consumer groups.`);
  await admin.disconnect();
  await rm(stateRoot, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);

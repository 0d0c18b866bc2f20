// Task idling benchmark (issue 34), on the broker: what a task costs while it waits, and what the
// waiting rule costs a join that does not wait.
// 1. Idle: a stream-table join whose table partition is empty (caught up) and whose stream
//    partition holds 5,000 records, with maxTaskIdleMs 12 s: the task waits, and the app's CPU
//    seconds over 10 s of that wait are measured (target: at most 0.5 s).
// 2. Join: 20,000 customers and 100,000 orders pre-loaded (4 partitions each), the same join at
//    the defaults, timed from start() until every input record is processed: records per
//    CPU-second of the app's process (the loading is not counted).
// Environment: KAFKA_BROKERS (default 127.0.0.1:9092), BENCH_JOIN_ORDERS (default 100000),
// BENCH_PARTS (default "idle,join": which of the two to run).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KafkaStreams, Serdes, StreamsBuilder } from '../packages/core/src/index.ts';
import { benchKafka, brokersFromEnv, connectAdmin, createTopics, deleteAll } from './word-count/cluster.ts';

const brokers = brokersFromEnv();
const S = Serdes.String();
const run = `task-idle-${Date.now()}`;
const ORDERS = Number(process.env.BENCH_JOIN_ORDERS ?? 100_000);
const CUSTOMERS = 20_000;
const PARTS = new Set((process.env.BENCH_PARTS ?? 'idle,join').split(','));

const cpuSeconds = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1e6;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function produce(topic: string, records: Array<{ key: string; value: string; timestamp: number }>) {
  const producer = benchKafka(brokers, `${run}-producer`).producer();
  await producer.connect();
  for (let i = 0; i < records.length; i += 5_000) {
    await producer.send({
      topic,
      messages: records.slice(i, i + 5_000).map((r) => ({ ...r, timestamp: String(r.timestamp) })),
    });
  }
  await producer.disconnect();
}

async function joinApp(orders: string, customers: string, maxTaskIdleMs: number) {
  const builder = new StreamsBuilder();
  const table = builder.table<string, string>(customers, { keySerde: S, valueSerde: S });
  builder
    .stream<string, string>(orders, { keySerde: S, valueSerde: S })
    .leftJoin(table, (order, customer) => `${order}=${customer ?? 'NULL'}`)
    .to(`${run}-out`, { keySerde: S, valueSerde: S });
  const stateDir = await mkdtemp(join(tmpdir(), 'kstreams-idle-bench-'));
  const app = new KafkaStreams(builder.build(), {
    applicationId: `${run}-app-${maxTaskIdleMs}`,
    brokers,
    stateDir,
    maxTaskIdleMs,
    logger: 'warn',
  });
  return { app, stateDir };
}

async function waitUntil(check: () => boolean, timeoutMs: number, what: string) {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

const base = Date.now() - 60_000;

/** CPU seconds of the app over 10 s of a wait on maxTaskIdleMs, and what it processed meanwhile. */
async function idle(): Promise<Record<string, unknown>> {
  await createTopics(admin, [`${run}-idle-orders`, `${run}-idle-customers`], 1);
  await produce(
    `${run}-idle-orders`,
    Array.from({ length: 5_000 }, (_, i) => ({ key: `c${i % 100}`, value: `o${i}`, timestamp: base + i })),
  );
  const { app, stateDir } = await joinApp(`${run}-idle-orders`, `${run}-idle-customers`, 12_000);
  await app.start();
  await waitUntil(() => app.state === 'RUNNING', 60_000, 'RUNNING');
  await sleep(500);
  const before = process.cpuUsage();
  await sleep(10_000);
  const cpu = cpuSeconds(process.cpuUsage(before));
  const processed = app.metrics().processedRecords;
  await app.close({ timeoutMs: 30_000 });
  await rm(stateDir, { recursive: true, force: true });
  return {
    'CPU seconds': cpu.toFixed(2),
    'over (s)': 10,
    'records processed while waiting': processed,
    target: '<= 0.5 CPU s',
  };
}

/** The join from start() until every input record is processed: records per CPU-second. */
async function joinThroughput(): Promise<Record<string, unknown>> {
  await createTopics(admin, [`${run}-orders`, `${run}-customers`], 4);
  await produce(
    `${run}-customers`,
    Array.from({ length: CUSTOMERS }, (_, i) => ({
      key: `c${i}`,
      value: `customer${i}`,
      timestamp: base + i,
    })),
  );
  await produce(
    `${run}-orders`,
    Array.from({ length: ORDERS }, (_, i) => ({
      key: `c${(i * 7919) % CUSTOMERS}`,
      value: `o${i}`,
      timestamp: base + CUSTOMERS + i,
    })),
  );
  const { app, stateDir } = await joinApp(`${run}-orders`, `${run}-customers`, 0);
  const started = process.cpuUsage();
  const t0 = performance.now();
  await app.start();
  await waitUntil(() => app.metrics().processedRecords >= ORDERS + CUSTOMERS, 300_000, 'the join');
  const cpu = cpuSeconds(process.cpuUsage(started));
  const wallS = (performance.now() - t0) / 1000;
  await app.close({ timeoutMs: 30_000 });
  await rm(stateDir, { recursive: true, force: true });
  return {
    'CPU seconds': cpu.toFixed(2),
    'over (s)': wallS.toFixed(1),
    'records per CPU-second': Math.round((ORDERS + CUSTOMERS) / cpu).toLocaleString('en-US'),
  };
}

const admin = await connectAdmin(brokers);
try {
  await createTopics(admin, [`${run}-out`], 4);
  const results: Record<string, Record<string, unknown>> = {};
  if (PARTS.has('idle')) results.idle = await idle();
  if (PARTS.has('join')) results.join = await joinThroughput();
  console.table(results);
} finally {
  await deleteAll(admin, [run], [`${run}-app-12000`, `${run}-app-0`]).catch(() => []);
  await admin.disconnect();
}

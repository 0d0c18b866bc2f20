// Asynchronous processors benchmark (issue 41), on the broker: a topology that calls a local HTTP
// service answering after 20 ms (./async-http/service.ts, its own process), 4 input partitions,
// one instance (one stream thread), at_least_once. Variants, in one run:
// - await: processValues with a processor whose process() awaits the call (what a topology could
//   do before issue 41: the thread waits for each record, all tasks included);
// - async-N: mapValuesAsync with maxInFlight N (per task) for N = 1, 100, 1000; async-1 is one
//   call at a time per task (4 at once), the baseline;
// - timer-1000: mapValuesAsync, maxInFlight 1000, whose call is a 20 ms timer instead of HTTP: what
//   the framework itself does per second when the calls cost it nothing;
// - http-only: the same client and service with 4,000 calls at once (4 tasks x 1,000), no Kafka: the
//   HTTP layer's ceiling on this machine, which async-1000 cannot pass.
// Records/s is measured from the first call to the last answer of the variant (the group join and
// task start-up are outside); timer-1000 from the first to the last call's end. CPU s: the app's
// and the service's processes (user + system) over the variant (the app's includes its start and
// close; app µs/rec is it per record). In flight: the mean of app.metrics().asyncInFlight while the calls ran; call ms: the
// mean of kstreams_stream_task_async_latency_avg over the tasks (from a call's start to its answer).
// Environment: KAFKA_BROKERS (default 127.0.0.1:9092), BENCH_ASYNC_RECORDS (records of the fast
// variants, default 40000; async-1 gets 1/20 of it, await 1/80), BENCH_ASYNC_ONLY (comma-separated
// variant names), BENCH_ASYNC_CONNECTIONS (the client's pool), BENCH_ASYNC_PROFILE (a directory: a
// CPU profile of the app's process per variant, from the first call to the last answer, without
// the input's production, the group join and the close that --cpu-prof would mix in).
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { KafkaStreams, Serdes, StreamsBuilder } from '../packages/core/src/index.ts';
import { httpOnly, type Served, startService } from './async-http/client.ts';
import { benchKafka, brokersFromEnv, connectAdmin, createTopics, deleteAll } from './word-count/cluster.ts';

const brokers = brokersFromEnv();
const S = Serdes.String();
const run = `async-http-${Date.now()}`;
// The fast variants (async-100, http-only, async-1000, timer-1000) process the same count; 120,000
// (40,000 before 2026-12-06's second round) so that the ramp (the first fetches, the JIT, the
// first 4,000 calls' connections) and the tail weigh less in the rate. The slow variants (await,
// async-1: a fixed 50 and 200 calls/s whatever the CPU) keep 500 and 2,000 records
// (BENCH_ASYNC_SLOW_RECORDS sets async-1's; await gets a quarter): more would only lengthen the run.
const FAST = Number(process.env.BENCH_ASYNC_RECORDS ?? 120_000);
const SLOW = Number(process.env.BENCH_ASYNC_SLOW_RECORDS ?? 2_000);
const PROFILE = process.env.BENCH_ASYNC_PROFILE;
const ONLY = process.env.BENCH_ASYNC_ONLY?.split(',').map((s) => s.trim());
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
// Distinct keys (a payment id, say): under per-key ordering a key's records are called one after
// another, so the keys bound the calls at once. With the first version's 997 keys async-1000 could
// never have more than 997 calls running over its 4 tasks (2026-12-06: 3,308 records in flight,
// most of them waiting for their key).
const KEYS = 100_000;

// BENCH_ASYNC_CONNECTIONS: the client pool's keep-alive connections to the service (default 1,000).
const service = await startService(Number(process.env.BENCH_ASYNC_CONNECTIONS ?? 1_000));
const timer: Served = { count: 0, first: 0, last: 0 };
/** timer-1000's "call": 20 ms, nothing else. */
async function timerCall(value: string): Promise<string> {
  if (timer.first === 0) timer.first = performance.now();
  await sleep(20);
  timer.count += 1;
  timer.last = performance.now();
  return `scored:/${value}`;
}

async function produce(topic: string, count: number) {
  const producer = benchKafka(brokers, `${run}-producer`).producer();
  await producer.connect();
  for (let i = 0; i < count; i += 5_000) {
    const n = Math.min(5_000, count - i);
    await producer.send({
      topic,
      messages: Array.from({ length: n }, (_, j) => ({ key: `k${(i + j) % KEYS}`, value: `v${i + j}` })),
    });
  }
  await producer.disconnect();
}

/**
 * The app process's event loop from the first call to the last answer: its utilization (1: the
 * thread never waited, the rate is CPU-bound; lower: it waited for something, the broker or a
 * lock) and its delay (how late a timer or an answer's callback runs: added to every call).
 */
class LoopWatch {
  private elu = performance.eventLoopUtilization();
  private readonly delay = monitorEventLoopDelay({ resolution: 10 });
  private started = false;
  start(): void {
    this.started = true;
    this.elu = performance.eventLoopUtilization();
    this.delay.enable();
  }
  stop(): Record<string, unknown> {
    if (!this.started) return { 'loop util': '-', 'loop delay ms': '-' };
    this.delay.disable();
    const { utilization } = performance.eventLoopUtilization(this.elu);
    const ms = (ns: number) => +(ns / 1e6).toFixed(0);
    return {
      'loop util': +utilization.toFixed(2),
      'loop delay ms': `${ms(this.delay.mean)}/${ms(this.delay.percentile(99))}/${ms(this.delay.max)}`,
    };
  }
}

interface Variant {
  name: string;
  records: number;
  counter: Served;
  build?(builder: StreamsBuilder, input: string, output: string): void;
}

const asyncVariant = (name: string, maxInFlight: number, records: number, timed = false): Variant => ({
  name,
  records,
  counter: timed ? timer : service.served,
  build: (b, input, output) =>
    b
      .stream<string, string>(input, { keySerde: S, valueSerde: S })
      .mapValuesAsync(
        // The HTTP call is aborted through call.onAbort (on a rollback); the timer has nothing to abort.
        (value: string, _key, call) => (timed ? timerCall(value) : service.call(value, call)),
        { maxInFlight },
      )
      .to(output, { keySerde: S, valueSerde: S }),
});

// http-only next to async-1000, so that both meet the machine's load of the same minute.
const all: Variant[] = [
  {
    name: 'await',
    records: Math.max(100, Math.round(SLOW / 4)),
    counter: service.served,
    build: (b, input, output) =>
      b
        .stream<string, string>(input, { keySerde: S, valueSerde: S })
        .processValues<string>(() => {
          let ctx!: { forward(r: unknown): void };
          return {
            init: (c) => {
              ctx = c as never;
            },
            process: async (record) => {
              ctx.forward(record.withValue(await service.call(record.value)));
            },
          };
        })
        .to(output, { keySerde: S, valueSerde: S }),
  },
  asyncVariant('async-1', 1, SLOW),
  asyncVariant('async-100', 100, FAST),
  { name: 'http-only', records: FAST, counter: service.served },
  asyncVariant('async-1000', 1000, FAST),
  asyncVariant('timer-1000', 1000, FAST, true),
];
// Only on request (BENCH_ASYNC_ONLY): the timer at maxInFlight 1 and 100, to tell the framework's
// cost per call from the HTTP layer's at every maxInFlight.
const extra = [asyncVariant('timer-1', 1, SLOW, true), asyncVariant('timer-100', 100, FAST, true)];
const variants = ONLY ? [...all, ...extra].filter((v) => ONLY.includes(v.name)) : all;

async function runApp(v: Variant & Required<Pick<Variant, 'build'>>): Promise<Record<string, unknown>> {
  const input = `${run}-${v.name}-in`;
  await createTopics(admin, [input, `${run}-${v.name}-out`], 4);
  await produce(input, v.records);
  const builder = new StreamsBuilder();
  v.build(builder, input, `${run}-${v.name}-out`);
  const stateDir = await mkdtemp(join(tmpdir(), 'kstreams-async-bench-'));
  const app = new KafkaStreams(builder.build(), {
    applicationId: `${run}-${v.name}`,
    brokers,
    stateDir,
    logger: 'warn',
  });
  await app.start();
  const until = Date.now() + 180_000;
  // Records in flight (app.metrics()), sampled while the calls run: by Little's law the rate is
  // in flight / call ms, which tells whether the framework keeps the calls coming or they take long.
  const inFlight: number[] = [];
  const profiler = PROFILE === undefined ? undefined : new Session();
  const loop = new LoopWatch();
  while (v.counter.count < v.records && Date.now() < until) {
    await sleep(50);
    if (v.counter.first === 0) continue;
    if (inFlight.length === 0) loop.start();
    if (profiler !== undefined && inFlight.length === 0) {
      profiler.connect();
      await profiler.post('Profiler.enable');
      await profiler.post('Profiler.start');
    }
    inFlight.push(app.metrics().asyncInFlight);
  }
  const loopFigures = loop.stop();
  if (profiler !== undefined && inFlight.length > 0) {
    const { profile } = await profiler.post('Profiler.stop');
    await mkdir(PROFILE!, { recursive: true });
    await writeFile(join(PROFILE!, `${v.name}.cpuprofile`), JSON.stringify(profile));
    profiler.disconnect();
  }
  const latency = (await app.metricsRegistry.getMetricsAsJSON()).find(
    (m) => m.name === 'kstreams_stream_task_async_latency_avg',
  );
  const ms = latency?.values.map((x) => x.value) ?? [];
  await app.close();
  await rm(stateDir, { recursive: true, force: true });
  return {
    'in flight':
      inFlight.length === 0 ? '-' : Math.round(inFlight.reduce((a, b) => a + b, 0) / inFlight.length),
    'call ms': ms.length === 0 ? '-' : +(ms.reduce((a, b) => a + b, 0) / ms.length).toFixed(1),
    ...loopFigures,
  };
}

const admin = await connectAdmin(brokers);
const results: Record<string, Record<string, unknown>> = {};
const load = loadavg()[0]!.toFixed(1);
try {
  for (const v of variants) {
    service.reset();
    Object.assign(timer, { count: 0, first: 0, last: 0 });
    const cpuBefore = process.cpuUsage();
    const serviceCpuBefore = await service.cpuSeconds();
    let extra: Record<string, unknown> = { 'in flight': 4_000 };
    if (v.build) extra = await runApp(v as Variant & Required<Pick<Variant, 'build'>>);
    else {
      const loop = new LoopWatch();
      loop.start();
      await httpOnly(service, v.records, 4_000);
      extra = { ...extra, ...loop.stop() };
    }
    const seconds = (v.counter.last - v.counter.first) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    results[v.name] = {
      records: v.counter.count,
      seconds: +seconds.toFixed(2),
      'records/s': Math.round(v.counter.count / seconds),
      'app CPU s': +((cpu.user + cpu.system) / 1e6).toFixed(1),
      // What bounds the rate on a loaded machine: 1e6 / this is the records/s of one free core.
      'app µs/rec': Math.round((cpu.user + cpu.system) / Math.max(1, v.counter.count)),
      'service CPU s': +((await service.cpuSeconds()) - serviceCpuBefore).toFixed(1),
      ...extra,
    };
  }
  const rate = (name: string) => Number(results[name]?.['records/s']);
  for (const name of Object.keys(results)) {
    results[name]!['x async-1'] = +(rate(name) / rate('async-1')).toFixed(1);
    results[name]!['x await'] = +(rate(name) / rate('await')).toFixed(1);
  }
  console.log(`load average (1 min) at the start: ${load}, at the end: ${loadavg()[0]!.toFixed(1)}`);
  console.table(results);
  const ratio = rate('async-1000') / rate('async-1');
  console.log(
    `async-1000 / async-1: ${ratio.toFixed(1)}x (target >= 50x): ${ratio >= 50 ? 'met' : 'NOT met'}; ` +
      `async-1000 / http-only: ${((100 * rate('async-1000')) / rate('http-only')).toFixed(0)}% of the HTTP layer's ceiling`,
  );
  const needed = 50 * rate('async-1');
  console.log(
    `50x async-1 needs ${Math.round(needed)} records/s; the HTTP client and service alone did ` +
      `${rate('http-only')} calls/s: ${rate('http-only') >= needed ? 'within' : 'out of'} reach of this machine's HTTP layer`,
  );
} finally {
  await deleteAll(
    admin,
    [run],
    variants.map((v) => `${run}-${v.name}`),
  ).catch(() => []);
  await admin.disconnect();
  await service.close();
}

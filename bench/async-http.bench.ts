// Asynchronous processors benchmark (issue 41), on the broker: a topology that calls a local HTTP
// service answering after 20 ms, 4 input partitions, one instance (one stream thread), at_least_once.
// Variants, in one run:
// - await: processValues with a processor whose process() awaits the call (what a topology could
//   do before issue 41: the thread waits for each record, all tasks included);
// - async-N: mapValuesAsync with maxInFlight N (per task) for N = 1, 100, 1000.
// Records/s is measured at the HTTP service, from its first request to its last answer of the
// variant (the group join and task start-up are outside). Target: async-1000 >= 50x async-1.
// Environment: KAFKA_BROKERS (default 127.0.0.1:9092), BENCH_ASYNC_RECORDS (records of the fast
// variants, default 20000; the slow ones get 1/10 and 1/40 of it).
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent, createServer, get } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KafkaStreams, Serdes, StreamsBuilder } from '../packages/core/src/index.ts';
import { benchKafka, brokersFromEnv, connectAdmin, createTopics, deleteAll } from './word-count/cluster.ts';

const brokers = brokersFromEnv();
const S = Serdes.String();
const run = `async-http-${Date.now()}`;
const FAST = Number(process.env.BENCH_ASYNC_RECORDS ?? 20_000);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Answers every request after 20 ms; counts answers and times the first request and last answer. */
const served = { count: 0, first: 0, last: 0 };
const server = createServer((req, res) => {
  if (served.first === 0) served.first = performance.now();
  setTimeout(() => {
    served.count += 1;
    served.last = performance.now();
    res.end(`scored:${req.url}`);
  }, 20);
});
server.keepAliveTimeout = 60_000;
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

// node:http with keep-alive, not fetch: on this shared 2-core machine (2026-12-06) fetch peaked at
// about 1,800 calls/s (400 at once) and timed out connecting at 4,000 at once, node:http reached
// 6,200/s at 1,000 sockets and collapsed at 4,000; so 1,000 sockets, the rest queue in the agent.
const agent = new Agent({ keepAlive: true, maxSockets: 1_000 });

function call(value: string, signal?: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    const request = get(`${url}/${value}`, { agent, ...(signal ? { signal } : {}) }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        body += chunk;
      });
      response.on('end', () => resolve(body));
    });
    request.on('error', reject);
  });
}

async function produce(topic: string, count: number) {
  const producer = benchKafka(brokers, `${run}-producer`).producer();
  await producer.connect();
  for (let i = 0; i < count; i += 5_000) {
    const n = Math.min(5_000, count - i);
    await producer.send({
      topic,
      messages: Array.from({ length: n }, (_, j) => ({ key: `k${(i + j) % 997}`, value: `v${i + j}` })),
    });
  }
  await producer.disconnect();
}

interface Variant {
  name: string;
  records: number;
  build(builder: StreamsBuilder, input: string, output: string): void;
}

const variants: Variant[] = [
  {
    name: 'await',
    records: Math.max(100, Math.round(FAST / 40)),
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
              ctx.forward(record.withValue(await call(record.value)));
            },
          };
        })
        .to(output, { keySerde: S, valueSerde: S }),
  },
  ...[1, 100, 1000].map(
    (maxInFlight): Variant => ({
      name: `async-${maxInFlight}`,
      records: maxInFlight === 1 ? Math.max(200, Math.round(FAST / 10)) : FAST,
      build: (b, input, output) =>
        b
          .stream<string, string>(input, { keySerde: S, valueSerde: S })
          .mapValuesAsync((value: string, _key, { signal }) => call(value, signal), { maxInFlight })
          .to(output, { keySerde: S, valueSerde: S }),
    }),
  ),
];

const admin = await connectAdmin(brokers);
const results: Record<string, Record<string, unknown>> = {};
try {
  for (const v of variants) {
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
    Object.assign(served, { count: 0, first: 0, last: 0 });
    await app.start();
    const until = Date.now() + 180_000;
    while (served.count < v.records && Date.now() < until) await sleep(50);
    await app.close();
    await rm(stateDir, { recursive: true, force: true });
    const seconds = (served.last - served.first) / 1000;
    results[v.name] = {
      records: served.count,
      seconds: +seconds.toFixed(2),
      'records/s': Math.round(served.count / seconds),
    };
  }
  const rate = (name: string) => Number(results[name]?.['records/s']);
  for (const name of Object.keys(results))
    results[name]!['x async-1'] = +(rate(name) / rate('async-1')).toFixed(1);
  console.table(results);
  const ratio = rate('async-1000') / rate('async-1');
  console.log(
    `async-1000 / async-1: ${ratio.toFixed(1)}x (target >= 50x): ${ratio >= 50 ? 'met' : 'NOT met'}`,
  );
} finally {
  await deleteAll(
    admin,
    [run],
    variants.map((v) => `${run}-${v.name}`),
  ).catch(() => []);
  await admin.disconnect();
  agent.destroy();
  server.close();
  server.closeAllConnections();
}

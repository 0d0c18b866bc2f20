// Restore reader benchmark (issue 36): how fast a changelog is read back into a store, by the
// restore reader on kstreams' own fetch loop (packages/core/src/kafka/restore-consumer.ts on
// partition-fetcher.ts, manual assignment) against the reader it replaced, a throw-away kafkajs
// consumer group (restore/group-reader.ts). A changelog of BENCH_RESTORE_RECORDS (default
// 400,000) keyed records of 100-byte values over 4 partitions is pre-loaded once; each variant
// then restores all of it read_committed (as under exactly_once) in a fresh Node process, the
// variants interleaved round after round (BENCH_ROUNDS, default 1). The apply step only counts
// records, so the figures are the reader's (fetch, decode, hand-out), from the call until every
// partition reached its end offset, including the group join for the baseline.
// Reports records/s, CPU seconds and peak RSS per run, and the ratio fetcher / group.
// Environment: KAFKA_BROKERS (default 127.0.0.1:9092), BENCH_RESTORE_RECORDS, BENCH_ROUNDS.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Kafka } from 'kafkajs';
import { type RestoreRequest, restoreChangelogs } from '../packages/core/src/kafka/restore-consumer.ts';
import { groupRestore } from './restore/group-reader.ts';
import {
  benchKafka,
  brokersFromEnv,
  connectAdmin,
  createTopics,
  deleteAll,
  endOffsets,
} from './word-count/cluster.ts';

const PARTITIONS = 4;
const VARIANTS = ['group', 'fetcher'] as const;
type Variant = (typeof VARIANTS)[number];

interface RunResult {
  variant: Variant;
  records: number;
  ms: number;
  cpuS: number;
  rssMB: number;
}

async function loadChangelog(kafka: Kafka, topic: string, records: number): Promise<void> {
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  const value = Buffer.alloc(100, 'v');
  for (let i = 0; i < records; i += 5_000) {
    const messages = [];
    for (let j = i; j < Math.min(i + 5_000, records); j++)
      messages.push({ key: `key-${j % 50_000}`, value, partition: j % PARTITIONS });
    await producer.send({ topic, messages, acks: -1 });
  }
  await producer.disconnect();
}

/** One restore in this process (the child): prints its result as JSON. */
async function child(variant: Variant, topic: string): Promise<void> {
  const brokers = brokersFromEnv();
  const kafka = benchKafka(brokers, `restore-bench-${variant}`);
  const admin = await connectAdmin(brokers);
  const ends = await endOffsets(admin, topic);
  let restored = 0;
  const requests: RestoreRequest[] = [...ends].map(([partition, end]) => ({
    topic,
    partition,
    startOffset: 0,
    endOffset: end,
    apply: async (records) => {
      restored += records.length;
    },
  }));
  const cpu = process.cpuUsage();
  const started = performance.now();
  let groupId: string | undefined;
  if (variant === 'group') groupId = await groupRestore(kafka, true, requests);
  else await restoreChangelogs(kafka, { readCommitted: true, timeoutMs: 600_000 }, requests);
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  if (groupId !== undefined) await admin.deleteGroups([groupId]).catch(() => {});
  await admin.disconnect();
  const result: RunResult = {
    variant,
    records: restored,
    ms,
    cpuS: (used.user + used.system) / 1e6,
    rssMB: process.resourceUsage().maxRSS / 1024,
  };
  console.log(JSON.stringify(result));
}

async function main(): Promise<void> {
  const brokers = brokersFromEnv();
  const records = Number(process.env.BENCH_RESTORE_RECORDS ?? 400_000);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 1);
  const prefix = `restore-bench-${Date.now()}`;
  const topic = `${prefix}-changelog`;
  const admin = await connectAdmin(brokers);
  try {
    await createTopics(admin, [topic], PARTITIONS);
    await loadChangelog(benchKafka(brokers, 'restore-bench-load'), topic, records);
    console.log(`changelog ${topic}: ${records} records over ${PARTITIONS} partitions`);
    const results: RunResult[] = [];
    for (let round = 0; round < rounds; round++) {
      for (const variant of VARIANTS) {
        const run = spawnSync(
          process.execPath,
          ['--import', 'tsx', fileURLToPath(import.meta.url), 'child', variant, topic],
          {
            encoding: 'utf8',
            env: process.env,
          },
        );
        const line = run.stdout.trim().split('\n').pop() ?? '';
        if (run.status !== 0 || !line.startsWith('{'))
          throw new Error(`${variant} run failed: ${run.stderr}`);
        const result = JSON.parse(line) as RunResult;
        if (result.records !== records)
          throw new Error(`${variant} restored ${result.records} records, expected ${records}`);
        results.push(result);
      }
    }
    console.log('| reader | records/s | ms | CPU s | records per CPU-s | peak RSS MB |');
    console.log('|---|---|---|---|---|---|');
    for (const r of results)
      console.log(
        `| ${r.variant} | ${Math.round(r.records / (r.ms / 1000))} | ${Math.round(r.ms)} | ${r.cpuS.toFixed(2)} | ${Math.round(r.records / r.cpuS)} | ${Math.round(r.rssMB)} |`,
      );
    const rate = (v: Variant) => {
      const rs = results.filter((r) => r.variant === v).map((r) => r.records / (r.ms / 1000));
      return rs.sort((a, b) => a - b)[Math.floor(rs.length / 2)]!;
    };
    console.log(
      `fetcher / group records/s (median of ${rounds}): ${(rate('fetcher') / rate('group')).toFixed(2)}`,
    );
  } finally {
    await deleteAll(admin, [prefix], []);
    await admin.disconnect();
  }
}

if (process.argv[2] === 'child') await child(process.argv[3] as Variant, process.argv[4]!);
else await main();

// End-to-end latency at a steady input rate (issue 18: at half of the app's measured maximum):
// a fresh instance of the app on an empty input topic, lines produced at a fixed rate, each
// stamped with its send time; every output record's latency is the time the benchmark's consumer
// received it (read_committed under exactly_once) minus its timestamp, which Kafka Streams and
// kstreams carry from the input line through the repartition topic to the count. With the record
// cache on, a word's count is written once per commit, stamped with its latest update: its
// latency is then that update's, the earlier ones it absorbed are not measured (as Kafka Streams'
// own record-e2e-latency metric).
import type { Admin, Kafka } from 'kafkajs';
import { Partitioners } from 'kafkajs';
import { createTopics } from './cluster.ts';
import { countWords } from './corpus.ts';
import { OutputTracker } from './output-tracker.ts';
import type { ChildArgs } from './protocol.ts';
import { type Launcher, runApp } from './run-app.ts';
import { variantOf } from './variants.ts';

export interface Latency {
  linesPerS: number;
  /** Output records measured (after the warm-up). */
  records: number;
  p50Ms: number;
  p99Ms: number;
}

/** Records whose input was sent in the first seconds are left out: JIT, caches and the group settle. */
const WARMUP_MS = 2_000;
const TICK_MS = 10;

function percentile(sorted: Float64Array, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Sends `lines` round-robin over the partitions at `linesPerS`, each line stamped when sent. */
export async function produceAtRate(
  kafka: Kafka,
  topic: string,
  lines: readonly string[],
  linesPerS: number,
  numPartitions: number,
  /** Stops sending (what is in flight is still awaited). */
  signal?: AbortSignal,
): Promise<void> {
  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  try {
    const start = Date.now();
    const inFlight: Promise<unknown>[] = [];
    let sent = 0;
    while (sent < lines.length && !signal?.aborted) {
      const due = Math.min(lines.length, Math.floor(((Date.now() - start) / 1000) * linesPerS));
      if (due > sent) {
        const timestamp = String(Date.now());
        const messages = [];
        for (; sent < due; sent++)
          messages.push({ value: lines[sent]!, partition: sent % numPartitions, timestamp });
        inFlight.push(producer.send({ topic, messages, acks: -1 }));
        if (inFlight.length > 8) await inFlight.shift();
      }
      await new Promise((r) => setTimeout(r, TICK_MS));
    }
    await Promise.all(inFlight);
  } finally {
    await producer.disconnect();
  }
}

export async function measureLatency(opts: {
  admin: Admin;
  kafka: Kafka;
  /** The app to run; its inputTopic and outputTopic are created here, empty. */
  args: ChildArgs;
  launch?: Launcher;
  lines: readonly string[];
  linesPerS: number;
  seconds: number;
  numPartitions: number;
  /** Consumer groups created here, for the caller to delete. */
  groups: string[];
}): Promise<Latency | { error: string }> {
  const { args } = opts;
  const count = Math.max(1, Math.round(opts.linesPerS * opts.seconds));
  const lines = Array.from({ length: count }, (_, i) => opts.lines[i % opts.lines.length]!);
  const expected = countWords(lines);
  await createTopics(opts.admin, [args.inputTopic, args.outputTopic], opts.numPartitions);
  let measureFrom = Number.POSITIVE_INFINITY;
  const latencies: number[] = [];
  const tracker = new OutputTracker({
    kafka: opts.kafka,
    topic: args.outputTopic,
    groupId: `${args.appId}-latency`,
    expected: expected.counts,
    transactional: variantOf(args.kind).exactlyOnce,
    onRecord: (m) => {
      const sentAt = Number(m.timestamp);
      if (sentAt >= measureFrom) latencies.push(Date.now() - sentAt);
    },
  });
  opts.groups.push(args.appId, `${args.appId}-latency`);
  let produced: Promise<void> | undefined;
  let producerError: Error | undefined;
  try {
    // Joined before the first line goes out, so that no latency includes the consumer's join.
    await tracker.follow(opts.numPartitions);
    const result = await runApp({
      args,
      launch: opts.launch,
      timeoutMs: (opts.seconds + 90) * 1000,
      progress: () => async () => {
        if (produced === undefined) {
          measureFrom = Date.now() + WARMUP_MS;
          produced = produceAtRate(
            opts.kafka,
            args.inputTopic,
            lines,
            opts.linesPerS,
            opts.numPartitions,
          ).catch((error: Error) => {
            producerError = error;
          });
        }
        if (producerError) throw producerError;
        const state = tracker.state();
        return {
          done: state.behind === 0,
          at: Date.now(),
          detail: `latency run: ${state.records} output records, ${state.behind} words not yet at their count`,
        };
      },
    });
    await produced;
    if (result.error !== undefined) return { error: result.error };
    if (result.skipped !== undefined) return { error: `skipped: ${result.skipped}` };
    if (latencies.length === 0) return { error: 'no output record after the warm-up' };
    const sorted = Float64Array.from(latencies).sort();
    return {
      linesPerS: opts.linesPerS,
      records: sorted.length,
      p50Ms: percentile(sorted, 50),
      p99Ms: percentile(sorted, 99),
    };
  } finally {
    await tracker.close();
  }
}

// The benchmark's own Kafka chores: find (or start) the broker, create and fill the topics, and
// delete everything it created at the end.
import { execFileSync } from 'node:child_process';
import { type Admin, Kafka, logLevel, type Message, Partitioners } from 'kafkajs';

export const repoRoot = new URL('../../', import.meta.url);

export function brokersFromEnv(): string[] {
  return (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092')
    .split(',')
    .map((b) => b.trim())
    .filter(Boolean);
}

export function benchKafka(brokers: string[], clientId: string): Kafka {
  return new Kafka({ clientId, brokers, logLevel: logLevel.NOTHING, retry: { retries: 3 } });
}

/**
 * Connects an admin client. Without KAFKA_BROKERS and no broker answering, starts the local one
 * (idempotent; it is left running for others).
 */
export async function connectAdmin(brokers: string[]): Promise<Admin> {
  const tryConnect = async () => {
    const admin = benchKafka(brokers, 'wc-bench-admin').admin();
    await admin.connect();
    await admin.listTopics();
    return admin;
  };
  try {
    return await tryConnect();
  } catch (error) {
    if (process.env.KAFKA_BROKERS) throw error;
    console.log('No broker at 127.0.0.1:9092; starting the local one (scripts/kafka/cli.ts start) ...');
    execFileSync(process.execPath, ['--import', 'tsx', 'scripts/kafka/cli.ts', 'start'], {
      cwd: repoRoot,
      stdio: 'inherit',
    });
    return await tryConnect();
  }
}

export async function createTopics(admin: Admin, topics: string[], numPartitions: number): Promise<void> {
  await admin.createTopics({
    topics: topics.map((topic) => ({ topic, numPartitions, replicationFactor: -1 })),
    waitForLeaders: true,
  });
}

/** Writes the lines round-robin over the partitions (no key), in large acknowledged batches. */
export async function preload(
  kafka: Kafka,
  topic: string,
  lines: readonly string[],
  numPartitions: number,
): Promise<void> {
  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  const CHUNK = 5_000;
  try {
    const inFlight: Promise<unknown>[] = [];
    for (let i = 0; i < lines.length; i += CHUNK) {
      const messages: Message[] = [];
      for (let j = i; j < Math.min(i + CHUNK, lines.length); j++) {
        messages.push({ value: lines[j]!, partition: j % numPartitions });
      }
      inFlight.push(producer.send({ topic, messages, acks: -1 }));
      if (inFlight.length >= 4) await inFlight.shift();
    }
    await Promise.all(inFlight);
  } finally {
    await producer.disconnect();
  }
}

/** Sum of the end offsets (the last stable offsets: the admin reads read_committed). */
export async function endOffsets(admin: Admin, topic: string): Promise<Map<number, number>> {
  const offsets = await admin.fetchTopicOffsets(topic);
  return new Map(offsets.map((o) => [o.partition, Number(o.high)]));
}

export async function deleteAll(admin: Admin, prefixes: string[], groups: string[]): Promise<string[]> {
  const existing = await admin.listTopics();
  // BENCH_KEEP_TOPICS: leave the run's topics for inspection (their names are in the log).
  const doomed = process.env.BENCH_KEEP_TOPICS
    ? []
    : existing.filter((t) => prefixes.some((p) => t.startsWith(p)));
  if (doomed.length > 0) await admin.deleteTopics({ topics: doomed, timeout: 30_000 });
  const listed = new Set((await admin.listGroups()).groups.map((g) => g.groupId));
  const gone = groups.filter((g) => listed.has(g));
  if (gone.length > 0) await admin.deleteGroups(gone).catch(() => {});
  return doomed;
}

// Produce input and read output on the real broker, for the runtime's integration tests.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Kafka } from 'kafkajs';
import { afterEach } from 'vitest';
import { testBrokers, testKafka, uniqueName } from '../../../../scripts/test/kafka.ts';
import { installReadCommittedFix } from '../../src/kafka/read-committed.ts';

// The tests' readers are kafkajs consumers too: without the fix they could count an aborted
// transaction's output as committed.
installReadCommittedFix();

export { testBrokers, testKafka, uniqueName };

export function tempStateDir(): string {
  return mkdtempSync(join(tmpdir(), 'kstreams-test-'));
}

export async function produce(
  topic: string,
  records: Array<{
    key?: string | Buffer | null;
    value: string | Buffer | null;
    partition?: number;
    timestamp?: number;
    headers?: { [name: string]: string | Buffer };
  }>,
  kafka: Kafka = testKafka(),
): Promise<void> {
  // Idempotent: kafkajs retries a whole produce request when one partition of it fails (a new
  // topic's leader not ready yet answers NOT_LEADER_OR_FOLLOWER), and a plain producer then writes
  // the other partitions' records twice. Seen 2026-12-05 in long-outage.int.test.ts: a duplicated
  // first batch in the input looked like exactly_once duplicates in the output.
  const producer = kafka.producer({
    allowAutoTopicCreation: false,
    idempotent: true,
    maxInFlightRequests: 1,
    // Bounded as before (kafkajs' default for an idempotent producer is unbounded): a test whose
    // topic is missing fails rather than hangs.
    retry: { retries: 5 },
  });
  await producer.connect();
  for (let i = 0; i < records.length; i += 5000) {
    await producer.send({
      topic,
      acks: -1,
      messages: records.slice(i, i + 5000).map((r) => ({
        key: r.key ?? null,
        value: r.value,
        partition: r.partition,
        ...(r.timestamp === undefined ? {} : { timestamp: String(r.timestamp) }),
        ...(r.headers === undefined ? {} : { headers: r.headers }),
      })),
    });
  }
  await producer.disconnect();
}

export interface ReadRecord {
  key: string;
  value: Buffer;
  partition: number;
  offset: number;
  timestamp: number;
  headers: { [name: string]: Buffer | string | undefined };
}

/**
 * Reads a topic from the beginning (read_committed unless told otherwise) until `until` says the
 * records are complete or the time runs out, and returns them in per-partition offset order.
 */
export async function readTopic(
  topic: string,
  until: (records: ReadRecord[]) => boolean,
  {
    timeoutMs = 60_000,
    readUncommitted = false,
    kafka = testKafka(),
    settleMs = 0,
    groupId = uniqueName('reader'),
  } = {},
): Promise<ReadRecord[]> {
  const consumer = kafka.consumer({
    groupId,
    readUncommitted,
    maxWaitTimeInMs: 100,
  });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const records: ReadRecord[] = [];
  let settled = false;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      clearInterval(poll);
      resolve();
    }, timeoutMs);
    const check = () => {
      if (settled || !until(records)) return;
      // Keep reading a little longer: a record that should not exist (a duplicate) arrives after
      // the expected ones.
      settled = true;
      clearTimeout(timer);
      clearInterval(poll);
      setTimeout(resolve, settleMs);
    };
    // Also without new records: `until` may give up on something else (the app failed).
    const poll = setInterval(check, 500);
    void consumer.run({
      eachBatch: async ({ batch }) => {
        for (const m of batch.messages) {
          records.push({
            key: m.key?.toString() ?? '',
            value: m.value ?? Buffer.alloc(0),
            partition: batch.partition,
            offset: Number(m.offset),
            timestamp: Number(m.timestamp),
            headers: (m.headers ?? {}) as ReadRecord['headers'],
          });
        }
        check();
      },
    });
  });
  await consumer.disconnect();
  // The reader's group is its own: leave the broker without it.
  const admin = kafka.admin();
  await admin.connect();
  await admin.deleteGroups([groupId]).catch(() => {});
  await admin.disconnect();
  return records;
}

/** Per key, the 64-bit counts in the order a reader saw them (an exact run shows 1..n). */
export function countSequences(records: ReadRecord[]): Map<string, number[]> {
  const seqs = new Map<string, number[]>();
  for (const r of records) {
    const list = seqs.get(r.key) ?? [];
    list.push(Number(r.value.readBigInt64BE(0)));
    seqs.set(r.key, list);
  }
  return seqs;
}

/**
 * The highest 64-bit count seen per key, kept up to date as a reader's list of records grows:
 * call `update` from readTopic's `until`. Under at_least_once a replay repeats counts, so the
 * highest is what shows whether a key was counted short.
 */
export function highestCounts() {
  const highest = new Map<string, number>();
  let seen = 0;
  return {
    highest,
    update(records: ReadRecord[]): Map<string, number> {
      for (; seen < records.length; seen++) {
        const { key, value } = records[seen]!;
        highest.set(key, Math.max(highest.get(key) ?? 0, Number(value.readBigInt64BE(0))));
      }
      return highest;
    },
  };
}

/** Creates topics (and waits for their leaders) on the cluster of `kafka`. */
export async function createTopics(kafka: Kafka, topics: Array<{ topic: string; numPartitions: number }>) {
  const admin = kafka.admin();
  await admin.connect();
  try {
    await admin.createTopics({ topics, waitForLeaders: true });
  } finally {
    await admin.disconnect();
  }
}

/** The last value per key, with values read as 8-byte big-endian counts. */
export function lastCounts(records: ReadRecord[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const r of records) out.set(r.key, Number(r.value.readBigInt64BE(0)));
  return out;
}

export async function waitFor(
  cond: () => boolean | Promise<boolean>,
  timeoutMs = 60_000,
  what = 'condition',
) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}

/**
 * The things a test file's tests start (apps, child processes), stopped after each test so that a
 * failing test leaves nothing running. Call at the top of the file; push what each test starts.
 */
export function stopAfterEach<T>(stop: (item: T) => Promise<unknown>): T[] {
  const items: T[] = [];
  afterEach(async () => {
    await Promise.all(items.splice(0).map(stop));
  });
  return items;
}

// Waits until a cell's output is complete: every key has reached its final value, as a
// read_committed reader sees it (kstreams' read_committed fix loaded through @kstreams/core).
import '@kstreams/core';
import { decodeValue } from '@kstreams/cli';
import type { Kafka } from 'kafkajs';

export interface WatchOptions {
  kafka: Kafka;
  topic: string;
  expected: Map<string, number>;
  timeoutMs: number;
  /** Keep reading this long after completion, so late duplicates are in the topic too. */
  settleMs?: number;
}

/** Resolves true when complete, false at the timeout (losses, or a stuck app). */
export async function waitForOutput(o: WatchOptions): Promise<boolean> {
  const highest = new Map<string, number>();
  const consumer = o.kafka.consumer({ groupId: `${o.topic}-watch`, maxWaitTimeInMs: 100 });
  await consumer.connect();
  await consumer.subscribe({ topic: o.topic, fromBeginning: true });
  const complete = () => [...o.expected].every(([k, n]) => (highest.get(k) ?? 0) >= n);
  try {
    return await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => finish(false), o.timeoutMs);
      let finished = false;
      const finish = (ok: boolean) => {
        if (finished) return;
        finished = true;
        clearTimeout(timer);
        setTimeout(() => resolve(ok), ok ? (o.settleMs ?? 1500) : 0);
      };
      void consumer.run({
        autoCommit: false,
        eachBatch: async ({ batch }) => {
          for (const m of batch.messages) {
            const v = decodeValue(m.value);
            const key = m.key?.toString() ?? '';
            if (typeof v === 'number') highest.set(key, Math.max(highest.get(key) ?? 0, v));
          }
          if (complete()) finish(true);
        },
      });
    });
  } finally {
    await consumer.disconnect();
  }
}

/**
 * Waits until the consumer group has committed the end of every partition of `topics`: a
 * restarted application has then reprocessed (and written) whatever it was going to.
 */
export async function waitForCaughtUp(
  kafka: Kafka,
  groupId: string,
  topics: string[],
  timeoutMs: number,
): Promise<boolean> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      let done = true;
      const committed = await admin.fetchOffsets({ groupId, topics });
      for (const topic of topics) {
        const ends = await admin.fetchTopicOffsets(topic);
        const mine = committed.find((c) => c.topic === topic)?.partitions ?? [];
        for (const e of ends) {
          const at = Number(mine.find((p) => p.partition === e.partition)?.offset ?? -1);
          if (Number(e.high) > 0 && at < Number(e.high)) done = false;
        }
      }
      if (done) return true;
      await new Promise((r) => setTimeout(r, 250));
    }
    return false;
  } finally {
    await admin.disconnect();
  }
}

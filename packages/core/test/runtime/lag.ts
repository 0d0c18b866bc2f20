// The consumer group's committed offsets against the log ends, as a lag monitor sees them.
import type { Kafka } from 'kafkajs';
import { testKafka } from './kafka-helpers.ts';

export interface CommittedLag {
  /** `topic-partition committed/end` of each partition whose committed offset is short of its end. */
  behind: string[];
  /** Partitions looked at. */
  partitions: number;
  /** The sum of their committed offsets (none counts as 0): it moves whenever the group commits. */
  committedTotal: number;
}

/**
 * Waits until the group `groupId` has committed, on every partition of `topics` and of the
 * topics `alsoTopics` selects (such as an app's repartition topics), the offset at the end of the
 * log, and returns what is still behind when `timeoutMs` runs out (nothing when it got there).
 */
export async function committedLag(
  groupId: string,
  topics: string[],
  alsoTopics: (topic: string) => boolean,
  timeoutMs: number,
  kafka: Kafka = testKafka('kstreams-test-lag'),
): Promise<CommittedLag> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const lag = await lagOnce(admin, groupId, [
        ...topics,
        ...(await admin.listTopics()).filter(alsoTopics),
      ]);
      if (lag.behind.length === 0 || Date.now() > deadline) return lag;
      await new Promise((r) => setTimeout(r, 500));
    }
  } finally {
    await admin.disconnect();
  }
}

async function lagOnce(
  admin: ReturnType<Kafka['admin']>,
  groupId: string,
  topics: string[],
): Promise<CommittedLag> {
  const committed = await admin.fetchOffsets({ groupId, topics });
  const behind: string[] = [];
  let partitions = 0;
  let committedTotal = 0;
  for (const { topic, partitions: ps } of committed) {
    const ends = new Map((await admin.fetchTopicOffsets(topic)).map((o) => [o.partition, Number(o.high)]));
    for (const p of ps) {
      partitions++;
      const end = ends.get(p.partition) ?? 0;
      // -1: never committed, which is behind unless the partition is empty.
      const at = Number(p.offset);
      committedTotal += Math.max(0, at);
      if (at < end) behind.push(`${topic}-${p.partition} ${at}/${end}`);
    }
  }
  return { behind, partitions, committedTotal };
}

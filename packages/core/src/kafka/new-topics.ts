// Partition counts of the topics an app reads and writes, waiting for topics just created. Right
// after a CreateTopics (by a deployment script, the app's own set-up, or on a broker that has just
// started), a broker's metadata may not have the topic yet: it is missing from the topic list,
// or its metadata answers UNKNOWN_TOPIC_OR_PARTITION or LEADER_NOT_AVAILABLE, or it has no
// partitions yet. start() waits for that (bounded, with backoff) instead of failing, so that apps
// need no retry of their own.
import { retryWhileErrorType } from './error-kinds.ts';

/** How long a topic missing from the list is looked for again: one just created shows up in ms. */
export const MISSING_TOPIC_GRACE_MS = 5_000;
/** How long a listed topic's metadata is waited for. */
export const NEW_TOPIC_METADATA_WAIT_MS = 30_000;

/** The two admin calls this needs (kafkajs' Admin has them). */
export interface TopicMetadataSource {
  listTopics(): Promise<string[]>;
  fetchTopicMetadata(options: {
    topics: string[];
  }): Promise<{ topics: Array<{ name: string; partitions: Array<{ leader: number }> }> }>;
}

export interface NewTopicsWait {
  missingGraceMs?: number;
  metadataWaitMs?: number;
}

/** A topic listed but without partitions yet: retried as kafkajs' LEADER_NOT_AVAILABLE is. */
class TopicNotReady extends Error {
  readonly type = 'LEADER_NOT_AVAILABLE';
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Partition counts of the topics that exist; a topic still missing after the grace is left out. */
export async function partitionCountsOfNewTopics(
  source: TopicMetadataSource,
  topics: string[],
  {
    missingGraceMs = MISSING_TOPIC_GRACE_MS,
    metadataWaitMs = NEW_TOPIC_METADATA_WAIT_MS,
  }: NewTopicsWait = {},
): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  if (topics.length === 0) return counts;
  const deadline = Date.now() + missingGraceMs;
  let listed = new Set(await source.listTopics());
  for (let pause = 100; topics.some((t) => !listed.has(t)) && Date.now() + pause <= deadline; ) {
    await sleep(pause);
    pause = Math.min(pause * 2, 1_000);
    listed = new Set(await source.listTopics());
  }
  const present = topics.filter((t) => listed.has(t));
  if (present.length === 0) return counts;
  const metadata = await retryWhileErrorType(
    ['UNKNOWN_TOPIC_OR_PARTITION', 'LEADER_NOT_AVAILABLE'],
    async () => {
      const { topics: meta } = await source.fetchTopicMetadata({ topics: present });
      const empty = meta.filter((t) => t.partitions.length === 0).map((t) => t.name);
      if (empty.length > 0) throw new TopicNotReady(`topics without partitions yet: ${empty.join(', ')}`);
      return meta;
    },
    { timeoutMs: metadataWaitMs, backoffMs: 100, maxBackoffMs: 2_000 },
  );
  for (const t of metadata) counts.set(t.name, t.partitions.length);
  return counts;
}

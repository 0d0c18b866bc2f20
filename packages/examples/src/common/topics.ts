import type { Admin } from 'kafkajs';

/**
 * Creates the topics that do not exist yet, with `numPartitions` each, and returns their names.
 * Brokers usually run with auto.create.topics.enable=false, and kstreams creates only its
 * internal topics, so the app creates its own input and output topics. Two instances starting at
 * once may both try: a topic that already exists is not an error.
 */
export async function ensureTopics(
  admin: Admin,
  topics: readonly string[],
  numPartitions: number,
): Promise<string[]> {
  const existing = new Set(await admin.listTopics());
  const missing = [...new Set(topics)].filter((t) => !existing.has(t));
  if (missing.length === 0) return [];
  try {
    await admin.createTopics({ topics: missing.map((topic) => ({ topic, numPartitions })) });
  } catch (error) {
    // kafkajs reports a topic created meanwhile by another instance as a TOPIC_ALREADY_EXISTS error.
    if ((error as { type?: string }).type !== 'TOPIC_ALREADY_EXISTS') throw error;
  }
  await waitForLeaders(admin, missing);
  return missing;
}

/** Partition count of each topic, from the cluster's metadata. */
export async function partitionCounts(admin: Admin, topics: readonly string[]): Promise<Map<string, number>> {
  const { topics: metadata } = await admin.fetchTopicMetadata({ topics: [...topics] });
  return new Map(metadata.map((t) => [t.name, t.partitions.length]));
}

/**
 * Waits until every partition of the topics has a leader. kafkajs' own `waitForLeaders` gives up
 * on the UNKNOWN_TOPIC_OR_PARTITION a KRaft broker answers while the new topic's metadata spreads.
 */
export async function waitForLeaders(
  admin: Admin,
  topics: readonly string[],
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const { topics: metadata } = await admin.fetchTopicMetadata({ topics: [...topics] });
      const ready = metadata.every(
        (t) => t.partitions.length > 0 && t.partitions.every((p) => p.leader >= 0),
      );
      if (ready && metadata.length === topics.length) return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
    if (Date.now() > deadline)
      throw new Error(`topics ${topics.join(', ')} have no leaders after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

// Kafka Streams' offset reset (auto.offset.reset, Consumed.withOffsetResetPolicy, KIP-1106): where
// a task starts an input partition for which the application's group has no committed offset.
import { StreamsError } from '../errors.ts';
import type { StreamsAdmin, TopicPartitionOffset } from '../kafka/admin.ts';
import type { AutoOffsetReset } from '../processor/auto-offset-reset.ts';
import type { Topology } from '../processor/topology.ts';

/**
 * The policy of each source topic (resolved name): its source's own, else the config's; internal
 * (repartition) topics always start at the earliest offset, as in Kafka Streams.
 */
export function offsetResetPolicies(
  topology: Topology,
  applicationId: string,
  defaultPolicy: AutoOffsetReset,
): (topic: string) => AutoOffsetReset {
  const builder = topology.internalBuilder;
  const policies = new Map<string, AutoOffsetReset>();
  for (const group of builder.subtopologyNodes()) {
    for (const node of group.nodes) {
      if (node.kind !== 'source') continue;
      for (const topic of node.topics) {
        const internal = builder.isInternalTopic(topic);
        policies.set(
          builder.resolveTopic(applicationId, topic),
          internal ? { type: 'earliest' } : (node.offsetResetPolicy ?? defaultPolicy),
        );
      }
    }
  }
  return (topic) => policies.get(topic) ?? defaultPolicy;
}

export type OffsetLookup = Pick<StreamsAdmin, 'startOffsets' | 'endOffsets' | 'offsetsForTimes'>;

/**
 * The start offset of each of `partitions` (none has a committed offset) by its topic's policy.
 * 'none' fails with the partitions named: Kafka Streams' NoOffsetForPartitionException.
 */
export async function resetOffsets(
  partitions: ReadonlyArray<{ topic: string; partition: number }>,
  policyOf: (topic: string) => AutoOffsetReset,
  admin: OffsetLookup,
  nowMs: number,
): Promise<TopicPartitionOffset[]> {
  const none = partitions.filter((p) => policyOf(p.topic).type === 'none');
  if (none.length > 0) {
    throw new StreamsError(
      `No committed offset for input partition(s) ${none.map((p) => `${p.topic}-${p.partition}`).join(', ')} ` +
        "and the offset reset policy is 'none'. Set autoOffsetReset in the config ('earliest', 'latest' or " +
        "AutoOffsetReset.byDuration(ms)) or the source's Consumed offsetResetPolicy, or commit offsets for the " +
        'group first (e.g. kafka-consumer-groups --reset-offsets).',
    );
  }
  const wanted = new Set(partitions.map((p) => `${p.topic}\u0000${p.partition}`));
  const byLookup = new Map<string, string[]>();
  for (const topic of new Set(partitions.map((p) => p.topic))) {
    const policy = policyOf(topic);
    const key = policy.type === 'by_duration' ? `by_duration:${policy.durationMs}` : policy.type;
    byLookup.set(key, [...(byLookup.get(key) ?? []), topic]);
  }
  const out: TopicPartitionOffset[] = [];
  for (const [key, topics] of byLookup) {
    const offsets =
      key === 'earliest'
        ? await admin.startOffsets(topics)
        : key === 'latest'
          ? await admin.endOffsets(topics)
          : await admin.offsetsForTimes(topics, nowMs - Number(key.slice('by_duration:'.length)));
    for (const o of offsets) if (wanted.has(`${o.topic}\u0000${o.partition}`)) out.push(o);
  }
  return out;
}

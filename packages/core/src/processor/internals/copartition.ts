// Kafka Streams' CopartitionedTopicsEnforcer: the inputs of a join must have the same partition
// count, or a key's records would meet its table row in another task. Checked at start against
// the topics' metadata. Repartition topics in a group take the count of the group's other topics
// (they are created afterwards); two source topics that differ are an error naming both.
import { TopologyError } from '../../errors.ts';

/**
 * `groups`: each group's topic names; `counts`: the partition count of every topic known (source
 * topics from the cluster, repartition topics as planned), updated for the repartition topics.
 */
export function enforceCopartitioning(
  groups: readonly (readonly string[])[],
  counts: Map<string, number>,
  isRepartitionTopic: (topic: string) => boolean,
): void {
  for (const group of groups) {
    const sources = group.filter((t) => !isRepartitionTopic(t) && counts.has(t));
    const repartitions = group.filter((t) => isRepartitionTopic(t));
    const distinct = new Set(sources.map((t) => counts.get(t)!));
    if (distinct.size > 1) {
      const listed = sources.map((t) => `${t} (${counts.get(t)} partitions)`).join(', ');
      throw new TopologyError(
        `Topics not co-partitioned: ${listed}. The inputs of a join must have the same number of ` +
          'partitions; repartition one side (KStream.repartition) or recreate a topic with the same count.',
      );
    }
    const planned = repartitions.map((t) => counts.get(t)).filter((n): n is number => n !== undefined);
    const width = distinct.size === 1 ? [...distinct][0]! : Math.max(0, ...planned);
    if (width > 0) for (const topic of repartitions) counts.set(topic, width);
  }
}

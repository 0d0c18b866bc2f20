// Kafka Streams' CopartitionedTopicsEnforcer: the inputs of a join must have the same partition
// count, or a key's records would meet its table row in another task. Checked at start against
// the topics' metadata. Repartition topics in a group take the count of the group's other topics
// (they are created afterwards); two source topics that differ are an error naming both. A
// repartition topic with a count of its own (Repartitioned.withNumberOfPartitions) keeps it: it
// must then agree with the group's source topics, or with the other fixed ones.
import { TopologyError } from '../../errors.ts';

/**
 * `groups`: each group's topic names; `counts`: the partition count of every topic known (source
 * topics from the cluster, repartition topics as planned), updated for the repartition topics;
 * `fixed`: the repartition topics whose count was given.
 */
export function enforceCopartitioning(
  groups: readonly (readonly string[])[],
  counts: Map<string, number>,
  isRepartitionTopic: (topic: string) => boolean,
  fixed: ReadonlySet<string> = new Set(),
): void {
  for (const group of groups) {
    const sources = group.filter((t) => !isRepartitionTopic(t) && counts.has(t));
    const repartitions = group.filter((t) => isRepartitionTopic(t));
    const fixedHere = repartitions.filter((t) => fixed.has(t) && counts.has(t));
    const distinct = new Set(sources.map((t) => counts.get(t)!));
    if (distinct.size > 1) {
      const listed = sources.map((t) => `${t} (${counts.get(t)} partitions)`).join(', ');
      throw new TopologyError(
        `Topics not co-partitioned: ${listed}. The inputs of a join must have the same number of ` +
          'partitions; repartition one side (KStream.repartition) or recreate a topic with the same count.',
      );
    }
    let width: number;
    if (distinct.size === 1) {
      width = [...distinct][0]!;
      for (const t of fixedHere) {
        if (counts.get(t) !== width) {
          throw new TopologyError(
            `Number of partitions [${counts.get(t)}] of repartition topic [${t}] doesn't match number of ` +
              `partitions [${width}] of the source topic. Give Repartitioned.numberOfPartitions the source ` +
              "topics' count, or leave it out so that the topic takes theirs.",
          );
        }
      }
    } else if (fixedHere.length > 0) {
      const fixedCounts = new Set(fixedHere.map((t) => counts.get(t)!));
      if (fixedCounts.size > 1) {
        const listed = fixedHere.map((t) => `${t} (${counts.get(t)} partitions)`).join(', ');
        throw new TopologyError(
          `Following topics do not have the same number of partitions: [${listed}]. Co-partitioned ` +
            'repartition topics need one Repartitioned.numberOfPartitions.',
        );
      }
      width = [...fixedCounts][0]!;
    } else {
      const planned = repartitions.map((t) => counts.get(t)).filter((n): n is number => n !== undefined);
      width = Math.max(0, ...planned);
    }
    if (width > 0) for (const topic of repartitions) if (!fixed.has(topic)) counts.set(topic, width);
  }
}

/**
 * The partition counts of the repartition topics, into `counts` (which holds the source topics'):
 * a fixed one as given, else the widest source topic of the sub-topology that writes it (through
 * chains of repartitions), then made to agree within each co-partition group.
 */
export function planRepartitionCounts(
  subs: readonly { sourceTopics: readonly string[]; repartitionSinkTopics: readonly string[] }[],
  counts: Map<string, number>,
  fixed: ReadonlyMap<string, number>,
  groups: readonly (readonly string[])[],
  isRepartitionTopic: (topic: string) => boolean,
): void {
  for (const [topic, n] of fixed) counts.set(topic, n);
  for (let changed = true; changed; ) {
    changed = false;
    for (const s of subs) {
      const widths = s.sourceTopics.map((t) => counts.get(t));
      // A pattern source with no matching topic yet: its topics come at a later refresh.
      if (widths.length === 0 || widths.some((w) => w === undefined)) continue;
      const width = Math.max(...(widths as number[]));
      for (const r of s.repartitionSinkTopics) {
        if (!counts.has(r)) {
          counts.set(r, width);
          changed = true;
        }
      }
    }
  }
  enforceCopartitioning(groups, counts, isRepartitionTopic, new Set(fixed.keys()));
}

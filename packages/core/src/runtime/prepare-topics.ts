// Before the stream thread starts (and when pattern sources found new topics): every source and
// sink topic must exist, and the internal topics are created with their sub-topology's partition
// count (a join's inputs co-partitioned).
import type { ResolvedConfig } from '../config/streams-config.ts';
import { StreamsError } from '../errors.ts';
import type { InternalTopicSpec, StreamsAdmin } from '../kafka/admin.ts';
import { principalOf, toAuthorizationError } from '../kafka/authorization.ts';
import { MISSING_TOPIC_GRACE_MS } from '../kafka/new-topics.ts';
import { planRepartitionCounts } from '../processor/internals/copartition.ts';
import type { Topology } from '../processor/topology.ts';

const ONE_DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Creates the internal topics with their sub-topology's partition count, after checking that
 * every source and sink topic exists (auto-creation is off on well-run clusters, and a missing
 * topic would otherwise show up as a silent hang). Topics just created are waited for.
 */
export async function prepareTopics(
  topology: Topology,
  config: ResolvedConfig,
  admin: StreamsAdmin,
): Promise<void> {
  const subs = topology.subtopologies(config.applicationId);
  const internal = new Set(subs.flatMap((s) => s.repartitionSourceTopics));
  const dlq = config.exceptionHandlers.deadLetterQueueTopic;
  const globalTopics = topology.internalBuilder.globalSourceTopics();
  const external = [
    ...new Set(
      [...subs.flatMap((s) => [...s.sourceTopics, ...s.sinkTopics]), ...globalTopics].filter(
        (t) => !internal.has(t),
      ),
    ),
    ...(dlq === undefined ? [] : [dlq]),
  ];
  const counts = await admin.existingPartitionCounts(external).catch((error: unknown) => {
    throw toAuthorizationError(error, config, { topics: external, topicOperation: 'Describe' }) ?? error;
  });
  const missing = external.filter((t) => !counts.has(t));
  if (missing.length > 0) {
    // Under ACLs, a topic the user may not Describe is left out of the topic list.
    throw new StreamsError(
      `Topics missing on the cluster (${config.brokers.join(',')}, looked for ${MISSING_TOPIC_GRACE_MS / 1000} s), or not visible to ` +
        `${principalOf(config)}: ${missing.join(', ')}. Create them before starting the app ` +
        '(kstreams creates only its internal topics); on a cluster with ACLs, allow its user Describe on them.',
    );
  }
  // Repartition topics: Repartitioned's count, else that of the sub-topology writing them; joins agree.
  const b = topology.internalBuilder;
  const appId = config.applicationId;
  const fixed = new Map([...b.fixedPartitionCounts].map(([t, n]) => [b.resolveTopic(appId, t), n]));
  planRepartitionCounts(subs, counts, fixed, b.copartitionGroups(appId), (t) => internal.has(t));
  const specs: InternalTopicSpec[] = [];
  for (const s of subs) {
    // A pattern source with no matching topic yet: its topics come at a later refresh.
    if (s.sourceTopics.length === 0) continue;
    const width = Math.max(...s.sourceTopics.map((t) => counts.get(t) ?? 0));
    for (const r of s.repartitionSourceTopics) {
      if (counts.has(r)) specs.push({ topic: r, numPartitions: counts.get(r)!, compacted: false });
    }
    for (const store of s.stores) {
      if (store.changelogTopic)
        specs.push({
          topic: store.changelogTopic,
          numPartitions: width,
          // A join's window store keys every record apart (Kafka Streams sets cleanup.policy=delete).
          compacted: store.retainDuplicates !== true,
          // Kafka Streams' windowstore.changelog.additional.retention.ms: a day past the store's.
          ...(store.retentionMs === undefined ? {} : { retentionMs: store.retentionMs + ONE_DAY_MS }),
          // Kafka Streams' VersionedChangelogTopicConfig: compaction waits the history plus a day.
          ...(store.historyRetentionMs === undefined
            ? {}
            : { minCompactionLagMs: store.historyRetentionMs + ONE_DAY_MS }),
        });
    }
  }
  const mismatched = await admin.ensureTopics(specs, config.replicationFactor).catch((error: unknown) => {
    const topics = specs.map((s) => s.topic);
    throw toAuthorizationError(error, config, { topics, topicOperation: 'Create' }) ?? error;
  });
  if (mismatched.length > 0) {
    throw new StreamsError(
      `Internal topics exist with the wrong partition count: ${mismatched
        .map((m) => `${m.topic} (want ${m.numPartitions})`)
        .join(', ')}. They are left from an app with the same applicationId and other inputs; ` +
        'delete them or choose another applicationId.',
    );
  }
}

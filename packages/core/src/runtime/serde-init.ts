// Serdes with `init` (Schema Registry serdes) learn, before any task runs, every topic the app
// writes with them: static sinks, repartition topics (`<applicationId>-<name>-repartition`) and
// store changelogs (`<applicationId>-<store>-changelog`), the topics Kafka Streams passes to its
// serializers. Their `serialize` stays synchronous: the per-topic work (a schema id registered
// or looked up under the topic's subject) is done here once, awaited by `KafkaStreams.start()`.
import type { InternalTopologyBuilder } from '../processor/internals/internal-topology-builder.ts';
import { changelogTopicName } from '../processor/internals/internal-topology-builder.ts';
import { type DefaultSerdes, isDefaultsAware } from '../processor/internals/serde-resolver.ts';
import { unwrapStoreSerde } from '../processor/internals/topic-bound-serde.ts';
import type { Serde } from '../serdes/serde.ts';

type InitSerde = Serde<unknown> & Required<Pick<Serde<unknown>, 'init'>>;

/** The topics a serde writes: sinks and repartition topics, and store changelogs (read back). */
export interface SerdeTopics {
  sinks: string[];
  changelogs: string[];
}

/** Each serde with `init`, and its topics (sinks with a topic extractor are unknown here). */
export function topicsToInit(
  builder: InternalTopologyBuilder,
  applicationId: string,
  defaults: DefaultSerdes,
): Map<InitSerde, SerdeTopics> {
  const bySerde = new Map<InitSerde, SerdeTopics>();
  const add = (
    serde: unknown,
    fallback: Serde<unknown> | undefined,
    topic: string,
    kind: keyof SerdeTopics,
  ) => {
    const resolved = serde === undefined ? fallback : unwrapStoreSerde(serde as Serde<unknown>);
    // A serde made of others (a left/outer join's shared store: both sides'): each is init'ed.
    if (resolved !== undefined && isDefaultsAware(resolved) && resolved.innerSerdes !== undefined) {
      for (const inner of resolved.innerSerdes(defaults)) add(inner, undefined, topic, kind);
      return;
    }
    if (resolved === undefined || typeof resolved.init !== 'function') return;
    const topics = bySerde.get(resolved as InitSerde) ?? { sinks: [], changelogs: [] };
    if (!topics[kind].includes(topic)) topics[kind].push(topic);
    bySerde.set(resolved as InitSerde, topics);
  };
  for (const group of builder.subtopologyNodes()) {
    for (const node of group.nodes) {
      if (node.kind !== 'sink' || typeof node.topic !== 'string') continue;
      const topic = builder.resolveTopic(applicationId, node.topic);
      add(node.keySerde, defaults.defaultKeySerde, topic, 'sinks');
      add(node.valueSerde, defaults.defaultValueSerde, topic, 'sinks');
    }
    for (const store of group.stores) {
      const topic = changelogTopicName(applicationId, store.name);
      add(store.keySerde, defaults.defaultKeySerde, topic, 'changelogs');
      add(store.valueSerde, defaults.defaultValueSerde, topic, 'changelogs');
    }
  }
  // A global store's changelog is its source topic (read back on every start).
  for (const store of builder.globalSubtopology()?.stores ?? []) {
    const topic = builder.globalStoreTopic(store.name);
    if (topic === undefined) continue;
    add(store.keySerde, defaults.defaultKeySerde, topic, 'changelogs');
    add(store.valueSerde, defaults.defaultValueSerde, topic, 'changelogs');
  }
  return bySerde;
}

/**
 * Awaits every serde's `init` with its topics (one serde at a time: a registry is one server);
 * changelogs with `readsBack`, since a store reads back what earlier runs wrote.
 */
export async function initSerdes(
  builder: InternalTopologyBuilder,
  applicationId: string,
  defaults: DefaultSerdes,
): Promise<void> {
  for (const [serde, { sinks, changelogs }] of topicsToInit(builder, applicationId, defaults)) {
    if (sinks.length > 0) await serde.init(sinks);
    if (changelogs.length > 0) await serde.init(changelogs, { readsBack: true });
  }
}

// Serdes with `init` (Schema Registry serdes) learn, before any task runs, every topic the app
// writes with them: static sinks, repartition topics (`<applicationId>-<name>-repartition`) and
// store changelogs (`<applicationId>-<store>-changelog`), the topics Kafka Streams passes to its
// serializers. Their `serialize` stays synchronous: the per-topic work (a schema id registered
// or looked up under the topic's subject) is done here once, awaited by `KafkaStreams.start()`.
import type { InternalTopologyBuilder } from '../processor/internals/internal-topology-builder.ts';
import { changelogTopicName } from '../processor/internals/internal-topology-builder.ts';
import type { DefaultSerdes } from '../processor/internals/serde-resolver.ts';
import { unwrapStoreSerde } from '../processor/internals/topic-bound-serde.ts';
import type { Serde } from '../serdes/serde.ts';

type InitSerde = Serde<unknown> & { init(topics: string[]): Promise<void> };

/** Each serde with `init`, and the topics it writes (sinks with a topic extractor are unknown here). */
export function topicsToInit(
  builder: InternalTopologyBuilder,
  applicationId: string,
  defaults: DefaultSerdes,
): Map<InitSerde, string[]> {
  const bySerde = new Map<InitSerde, string[]>();
  const add = (serde: unknown, fallback: Serde<unknown> | undefined, topic: string) => {
    const resolved = serde === undefined ? fallback : unwrapStoreSerde(serde as Serde<unknown>);
    if (resolved === undefined || typeof resolved.init !== 'function') return;
    const topics = bySerde.get(resolved as InitSerde) ?? [];
    if (!topics.includes(topic)) topics.push(topic);
    bySerde.set(resolved as InitSerde, topics);
  };
  for (const group of builder.subtopologyNodes()) {
    for (const node of group.nodes) {
      if (node.kind !== 'sink' || typeof node.topic !== 'string') continue;
      const topic = builder.resolveTopic(applicationId, node.topic);
      add(node.keySerde, defaults.defaultKeySerde, topic);
      add(node.valueSerde, defaults.defaultValueSerde, topic);
    }
    for (const store of group.stores) {
      const topic = changelogTopicName(applicationId, store.name);
      add(store.keySerde, defaults.defaultKeySerde, topic);
      add(store.valueSerde, defaults.defaultValueSerde, topic);
    }
  }
  return bySerde;
}

/** Awaits every serde's `init` with its topics (one serde at a time: a registry is one server). */
export async function initSerdes(
  builder: InternalTopologyBuilder,
  applicationId: string,
  defaults: DefaultSerdes,
): Promise<void> {
  for (const [serde, topics] of topicsToInit(builder, applicationId, defaults)) await serde.init(topics);
}

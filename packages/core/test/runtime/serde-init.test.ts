// Serdes that depend on the topic (Schema Registry serdes: `init` per topic, `prepare` per id) on
// internal topics: which topics `KafkaStreams.start()` initializes them for, the changelog topic
// a store's serdes see, what a restore prepares, and a KTable change through a repartition topic.
import { InMemoryKeyValueStore, type TypedKeyValueStore } from '@kstreams/state-store';
import { describe, expect, it } from 'vitest';
import { Change, changeSerde } from '../../src/kstream/internals/change.ts';
import { StreamsBuilder } from '../../src/kstream/streams-builder.ts';
import { ProcessorStateManager } from '../../src/processor/internals/processor-state-manager.ts';
import { bindToTopic } from '../../src/processor/internals/topic-bound-serde.ts';
import { initSerdes, topicsToInit } from '../../src/runtime/serde-init.ts';
import type { Serde } from '../../src/serdes/serde.ts';
import { Serdes } from '../../src/serdes/serdes.ts';
import { timestampedKeyValueStoreBuilder } from '../../src/state/store-builder.ts';
import { timestampedView } from '../../src/state/value-and-timestamp.ts';

/** A JSON serde that records the topics it is called with, as a registry serde would use them. */
function topicAwareSerde() {
  const seen = { serialize: [] as unknown[], deserialize: [] as unknown[] };
  const init: Array<{ topics: string[]; readsBack: boolean }> = [];
  const prepared: Buffer[] = [];
  // biome-ignore lint/suspicious/noExplicitAny: stands in for serdes of any value type
  const serde: Serde<any> & Required<Pick<Serde<any>, 'init'>> = {
    serialize(data, topic) {
      seen.serialize.push(topic);
      return Buffer.from(JSON.stringify(data));
    },
    deserialize(data, topic) {
      seen.deserialize.push(topic);
      return JSON.parse(data.toString());
    },
    prepare(data) {
      prepared.push(data);
      return data.toString() === '"fetch me"' ? Promise.resolve() : undefined;
    },
    async init(topics, options) {
      init.push({ topics, readsBack: options?.readsBack === true });
    },
  };
  return { serde, seen, prepared, init };
}

describe('registry-style serdes on internal topics', () => {
  it('are initialized for their sinks, repartition topics and changelogs, named as Kafka Streams does', async () => {
    const values = topicAwareSerde();
    const stats = topicAwareSerde();
    const keys = topicAwareSerde();
    const builder = new StreamsBuilder();
    builder
      .stream('orders', { keySerde: Serdes.String(), valueSerde: values.serde })
      .repartition({ name: 'by-order', valueSerde: values.serde })
      .groupBy((_k, v) => String(v), { name: 'by-customer', valueSerde: values.serde })
      .aggregate(
        () => 0,
        (_k, _v, n: number) => n + 1,
        { storeName: 'stats', valueSerde: stats.serde },
      )
      .toStream()
      .to('out', { valueSerde: Serdes.Json() });
    const topology = builder.build();
    // The default key serde stands in wherever no key serde was given or carried downstream
    // (the repartition keeps the stream's String keys).
    const defaults = { defaultKeySerde: keys.serde };
    const byserde = topicsToInit(topology.internalBuilder, 'app', defaults);
    expect(byserde.get(values.serde)).toEqual({
      sinks: ['app-by-order-repartition', 'app-by-customer-repartition'],
      changelogs: [],
    });
    expect(byserde.get(stats.serde)).toEqual({ sinks: [], changelogs: ['app-stats-changelog'] });
    expect(byserde.get(keys.serde)).toEqual({
      sinks: ['app-by-customer-repartition', 'out'],
      changelogs: ['app-stats-changelog'],
    });
    expect(byserde.size).toBe(3); // Serdes.String() and Serdes.Json() have no init

    await initSerdes(topology.internalBuilder, 'app', defaults);
    // A store reads back what earlier runs wrote: its changelog comes with readsBack.
    expect(stats.init).toEqual([{ topics: ['app-stats-changelog'], readsBack: true }]);
    expect(values.init).toEqual([
      { topics: ['app-by-order-repartition', 'app-by-customer-repartition'], readsBack: false },
    ]);
  });

  it("binds a store's serdes to its changelog topic and prepares restored values", async () => {
    const stats = topicAwareSerde();
    const manager = new ProcessorStateManager({
      taskId: '0_0',
      applicationId: 'app',
      partition: 0,
      storeFactory: (name) => new InMemoryKeyValueStore(name),
      onCommitRequested: () => {},
    });
    manager.register(timestampedKeyValueStoreBuilder('stats', Serdes.String(), stats.serde));
    await manager.initialize();
    const store = manager.store('stats') as TypedKeyValueStore<string, unknown>;
    timestampedView(store).put('ann', { value: { total: 3 }, timestamp: 7 });
    expect(store.get('ann')).toEqual({ total: 3 });
    expect(stats.seen.serialize).toEqual(['app-stats-changelog']);
    expect(stats.seen.deserialize).toEqual(['app-stats-changelog']);

    // The restore prepares the changelog's plain values (no timestamp in front) and awaits them.
    const prepare = manager.restorePreparer('stats')!;
    await prepare([
      { key: Buffer.from('ann'), value: Buffer.from('"fetch me"'), timestamp: 1 },
      { key: Buffer.from('bob'), value: null, timestamp: 2 },
    ]);
    expect(stats.prepared.map(String)).toEqual(['"fetch me"']);
  });

  it('leaves built-in serdes as they are, and a store of them has nothing to prepare', async () => {
    const long = Serdes.Long();
    expect(bindToTopic(long, 'app-s-changelog')).toBe(long);
    const manager = new ProcessorStateManager({
      taskId: '0_0',
      applicationId: 'app',
      partition: 0,
      storeFactory: (name) => new InMemoryKeyValueStore(name),
      onCommitRequested: () => {},
    });
    manager.register(timestampedKeyValueStoreBuilder('s', Serdes.String(), long));
    expect(manager.restorePreparer('s')).toBeUndefined();
  });

  it('prepares both values of a KTable change read from a repartition topic, each from its own bytes', async () => {
    const inner = topicAwareSerde();
    const serde = changeSerde(inner.serde);
    const both = serde.serialize(new Change('fetch me', 'old'), 'app-t-repartition');
    await serde.prepare!(both, 'app-t-repartition');
    expect(inner.prepared.map(String)).toEqual(['"fetch me"', '"old"']);
    expect(changeSerde(Serdes.String()).prepare).toBeUndefined();
  });
});

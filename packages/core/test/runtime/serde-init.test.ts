// Serdes that depend on the topic (Schema Registry serdes: `init` per topic, `prepare` per id) on
// internal topics: which topics `KafkaStreams.start()` initializes them for, the changelog topic
// a store's serdes see, what a restore prepares, and a KTable change through a repartition topic.
import { InMemoryKeyValueStore, type TypedKeyValueStore } from '@kstreams/state-store';
import { afterEach, describe, expect, it } from 'vitest';
import { Change, changeSerde } from '../../src/kstream/internals/change.ts';
import { OuterJoinStoreBuilder } from '../../src/kstream/internals/outer-join-store.ts';
import { JoinWindows } from '../../src/kstream/join-windows.ts';
import { StreamsBuilder } from '../../src/kstream/streams-builder.ts';
import { ProcessorStateManager } from '../../src/processor/internals/processor-state-manager.ts';
import { bindToTopic } from '../../src/processor/internals/topic-bound-serde.ts';
import { initSerdes, topicsToInit } from '../../src/runtime/serde-init.ts';
import type { Serde } from '../../src/serdes/serde.ts';
import { Serdes } from '../../src/serdes/serdes.ts';
import { timestampedKeyValueStoreBuilder } from '../../src/state/store-builder.ts';
import { timestampedView } from '../../src/state/value-and-timestamp.ts';
import { TopologyTestDriver } from '../../src/testing/index.ts';

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

let driver: TopologyTestDriver | undefined;
afterEach(async () => {
  await driver?.close();
  driver = undefined;
});

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

  it("hands a left/outer join's shared store both sides' serdes, bound to its changelog, and inits them", async () => {
    const lefts = topicAwareSerde();
    const rights = topicAwareSerde();
    const b = new StreamsBuilder();
    const S = Serdes.String();
    const left = b.stream('left', { keySerde: S, valueSerde: lefts.serde });
    const right = b.stream('right', { keySerde: S, valueSerde: rights.serde });
    left
      .outerJoin(right, (l, r) => `${l}+${r}`, JoinWindows.ofTimeDifferenceWithNoGrace(100))
      .to('out', { valueSerde: S });
    const topology = b.build();
    const shared = /^app-KSTREAM-OUTERSHARED-\d+-store-changelog$/;
    for (const side of [lefts, rights]) {
      expect(topicsToInit(topology.internalBuilder, 'app', {}).get(side.serde)?.changelogs).toEqual(
        expect.arrayContaining([expect.stringMatching(shared)]),
      );
    }

    driver = new TopologyTestDriver(topology, { applicationId: 'app' });
    const leftIn = driver.createInputTopic('left', S, lefts.serde);
    const out = driver.createOutputTopic('out', S, S);
    await leftIn.pipeInput('k', 'a', 0);
    // Past the window: the unjoined left record comes back out of the shared store.
    await driver.createInputTopic('right', S, rights.serde).pipeInput('x', 'b', 1_000);
    expect(out.readValuesToList()).toEqual(['a+null']);
    expect(lefts.seen.serialize.filter((t) => shared.test(String(t)))).toHaveLength(1);
    expect(lefts.seen.deserialize.filter((t) => shared.test(String(t)))).toHaveLength(1);
  });

  it("prepares each side's values of a join's shared store on restore, from the list's items", async () => {
    const lefts = topicAwareSerde();
    const rights = topicAwareSerde();
    const manager = new ProcessorStateManager({
      taskId: '0_0',
      applicationId: 'app',
      partition: 0,
      storeFactory: (name) => new InMemoryKeyValueStore(name),
      onCommitRequested: () => {},
    });
    const sides = { left: lefts.serde, right: rights.serde };
    manager.register(new OuterJoinStoreBuilder('shared', Serdes.String(), sides, true));
    const item = (side: number, json: string) => Buffer.concat([Buffer.of(side), Buffer.from(json)]);
    const list = (...items: Buffer[]) =>
      Buffer.concat([
        Buffer.of(1, 0, 0, 0, items.length),
        ...items.flatMap((i) => [Buffer.of(0, 0, 0, i.length), i]),
      ]);
    await manager.restorePreparer('shared')!([
      { key: Buffer.alloc(10), value: list(item(1, '"fetch me"'), item(1, '"l2"')), timestamp: 1 },
      { key: Buffer.alloc(10), value: list(item(0, '"r"')), timestamp: 2 },
      { key: Buffer.alloc(10), value: null, timestamp: 3 },
    ]);
    expect(lefts.prepared.map(String)).toEqual(['"fetch me"', '"l2"']);
    expect(rights.prepared.map(String)).toEqual(['"r"']);
  });

  it("inits a global table's serdes with its source topic, its changelog, which its store's serdes see", async () => {
    const values = topicAwareSerde();
    const b = new StreamsBuilder();
    b.globalTable('customers', { keySerde: Serdes.String(), valueSerde: values.serde }, { storeName: 'c' });
    const topology = b.build();
    expect(topicsToInit(topology.internalBuilder, 'app', {}).get(values.serde)).toEqual({
      sinks: [],
      changelogs: ['customers'],
    });
    driver = new TopologyTestDriver(topology, { applicationId: 'app' });
    await driver.createInputTopic('customers', Serdes.String(), values.serde).pipeInput('k', { name: 'ann' });
    expect(driver.getKeyValueStore('c').get('k')).toEqual({ name: 'ann' });
    expect(values.prepared.map(String)).toEqual(['{"name":"ann"}']);
    expect(new Set(values.seen.serialize)).toEqual(new Set(['customers']));
    expect(new Set(values.seen.deserialize)).toEqual(new Set(['customers']));
  });
});

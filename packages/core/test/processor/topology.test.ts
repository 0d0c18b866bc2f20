import { describe, expect, it } from 'vitest';
import { TopologyError } from '../../src/errors.ts';
import { Topology } from '../../src/processor/topology.ts';
import { Serdes } from '../../src/serdes/serdes.ts';
import { Stores } from '../../src/state/index.ts';

const noop = () => ({ process() {} });

describe('Topology', () => {
  it('splits sub-topologies at repartition topics and resolves internal names', () => {
    const topology = new Topology()
      .addSource('s1', 'in')
      .addProcessor('p1', noop, 's1')
      .addSink('k1', 'by-key-repartition', undefined, 'p1')
      .addSource('s2', 'by-key-repartition')
      .addProcessor('agg', noop, 's2')
      .addStateStore(Stores.keyValueStoreBuilder('totals', Serdes.String(), Serdes.Long()), 'agg')
      .addStateStore(Stores.keyValueStoreBuilder('scratch').withLoggingDisabled(), 'agg')
      .addSink('k2', 'out', undefined, 'agg');
    topology.internalBuilder.addInternalTopic('by-key-repartition');
    expect(topology.subtopologies('app')).toEqual([
      {
        id: 0,
        sourceTopics: ['in'],
        repartitionSourceTopics: [],
        sinkTopics: ['app-by-key-repartition'],
        repartitionSinkTopics: ['app-by-key-repartition'],
        stores: [],
      },
      {
        id: 1,
        sourceTopics: ['app-by-key-repartition'],
        repartitionSourceTopics: ['app-by-key-repartition'],
        sinkTopics: ['out'],
        repartitionSinkTopics: [],
        stores: [
          { name: 'totals', changelogTopic: 'app-totals-changelog' },
          { name: 'scratch', changelogTopic: null },
        ],
      },
    ]);
  });

  it('puts processors that share a store into one sub-topology', () => {
    const topology = new Topology()
      .addSource('a', 'ta')
      .addProcessor('pa', noop, 'a')
      .addSource('b', 'tb')
      .addProcessor('pb', noop, 'b')
      .addStateStore(Stores.keyValueStoreBuilder('shared'), 'pa', 'pb');
    expect(topology.subtopologies('x').map((s) => s.sourceTopics)).toEqual([['ta', 'tb']]);
  });

  const bad: Array<[string, () => Topology, RegExp]> = [
    [
      'a duplicate node name',
      () => new Topology().addSource('n', 'a').addProcessor('n', noop, 'n'),
      /Node name n is used twice/,
    ],
    [
      'a source topic used twice',
      () => new Topology().addSource('s1', 'a').addSource('s2', 'a'),
      /Topic 'a' is already read by source s1/,
    ],
    [
      'a sink with no upstream',
      () => new Topology().addSource('s', 'a').addSink('k', 'out', undefined),
      /Sink k has no upstream/,
    ],
    [
      'an unknown parent',
      () => new Topology().addSource('s', 'a').addProcessor('p', noop, 'ghost').validate(),
      /Processor p has unknown parent ghost/,
    ],
    [
      'a cycle',
      () =>
        new Topology()
          .addSource('s', 'a')
          .addProcessor('p1', noop, 's', 'p2')
          .addProcessor('p2', noop, 'p1')
          .validate(),
      /cycle: p1 -> p2 -> p1/,
    ],
    [
      'a store no processor uses',
      () =>
        new Topology()
          .addSource('s', 'a')
          .addProcessor('p', noop, 's')
          .addStateStore(Stores.keyValueStoreBuilder('lonely'))
          .validate(),
      /State store 'lonely' is not connected to any processor/,
    ],
    [
      'a processor connected to a missing store',
      () =>
        new Topology()
          .addSource('s', 'a')
          .addProcessor('p', noop, 's')
          .connectProcessorAndStateStores('p', 'nope')
          .validate(),
      /unknown state store 'nope'/,
    ],
  ];
  for (const [what, build, message] of bad) {
    it(`rejects ${what} with a TopologyError`, () => {
      expect(build).toThrow(TopologyError);
      expect(build).toThrow(message);
    });
  }
});

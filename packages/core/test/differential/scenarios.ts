// The differential scenarios: each names a topology that Differential.java builds with Kafka
// Streams' DSL and that `ourTopology` builds with ours, the same operator for operator, and
// input records chosen to hit the rules of docs/architecture.md's "Result semantics" (late
// records, null keys and values, tombstones for absent keys). The windows and joins issues add
// their topologies and scenarios here and in Differential.java.
import type { Scenario, ScenarioInput } from '../../../../scripts/differential/kafka-streams.ts';
import { StreamsBuilder, TimeWindows } from '../../src/kstream/index.ts';
import type { Topology } from '../../src/processor/topology.ts';
import { Serdes } from '../../src/serdes/serdes.ts';
import type { Windowed } from '../../src/windowed.ts';
import { cacheScenarios, cacheTopologies } from './scenarios-cache.ts';
import { cogroupScenarios, cogroupTopologies } from './scenarios-cogroup.ts';
import { eventTimeScenarios, eventTimeTopologies } from './scenarios-event-time.ts';
import { headersScenarios, headersTopologies } from './scenarios-headers.ts';
import { joinFkScenarios, joinFkTopologies } from './scenarios-joins-fk.ts';
import { joinStreamScenarios, joinStreamTopologies } from './scenarios-joins-stream.ts';
import { joinTableScenarios, joinTableTopologies } from './scenarios-joins-table.ts';
import { lateInputScenarios } from './scenarios-late-input.ts';
import { partitionerScenarios, partitionerTopologies } from './scenarios-partitioners.ts';
import { patternScenarios, patternTopologies } from './scenarios-pattern.ts';
import { slidingSessionScenarios, slidingSessionTopologies } from './scenarios-sliding-session.ts';
import { suppressScenarios, suppressTopologies } from './scenarios-suppress.ts';
import { versionedScenarios, versionedTopologies } from './scenarios-versioned.ts';

const S = Serdes.String();
const L = Serdes.Long();

type Build = (builder: StreamsBuilder) => void;

const windowName = (key: Windowed<string>) => `${key.key}@${key.window.start}/${key.window.end}`;

function windowedCount(b: StreamsBuilder, windows: TimeWindows): void {
  b.stream<string, string>('in')
    .groupByKey()
    .windowedBy(windows)
    .count()
    .toStream()
    .selectKey(windowName)
    .to('out', { valueSerde: L });
}

const topologies: Record<string, Build> = {
  stateless: (b) =>
    b
      .stream<string, string>('in')
      .filter((_k, v) => v !== 'skip')
      .mapValues((v) => v.toUpperCase())
      .flatMapValues((v) => v.split(' '))
      .map((k, v) => ({ key: v, value: k }))
      .to('out'),
  'group-by-count': (b) =>
    b
      .stream<string, string>('in')
      .groupBy((_k, v) => v)
      .count()
      .toStream()
      .to('out', { valueSerde: L }),
  'tumbling-count': (b) => windowedCount(b, TimeWindows.ofSizeWithNoGrace(10)),
  'tumbling-grace-count': (b) => windowedCount(b, TimeWindows.ofSizeAndGrace(10, 5)),
  'hopping-count': (b) => windowedCount(b, TimeWindows.ofSizeAndGrace(10, 2).advanceBy(5)),
  'windowed-reduce-aggregate': (b) => {
    const windowed = b
      .stream<string, string>('in')
      .groupByKey()
      .windowedBy(TimeWindows.ofSizeWithNoGrace(10));
    windowed
      .reduce((a, v) => `${a}+${v}`)
      .toStream()
      .selectKey(windowName)
      .to('reduced');
    windowed
      .aggregate(
        () => 0,
        (_k, v, total) => total + (v === null ? 100 : v.length),
        { valueSerde: L },
      )
      .toStream()
      .selectKey(windowName)
      .to('lengths', { valueSerde: L });
  },
  'named-count-changelog': (b) =>
    b
      .stream<string, string>('in')
      .groupByKey()
      .count({ storeName: 'counts' })
      .toStream()
      .to('out', { valueSerde: L }),
  'group-by-key-aggregations': (b) => {
    const grouped = b.stream<string, string>('in').groupByKey();
    grouped.count().toStream().to('counts', { valueSerde: L });
    grouped
      .reduce((a, v) => `${a}+${v}`)
      .toStream()
      .to('reduced');
    grouped
      .aggregate(
        () => 0,
        (_k, v, total) => total + v.length,
        { valueSerde: L },
      )
      .toStream()
      .to('lengths', { valueSerde: L });
  },
  'select-key-count': (b) =>
    b
      .stream<string, string>('in')
      .selectKey((_k, v) => (v === 'none' ? null : v.slice(0, 1)))
      .groupByKey()
      .count()
      .toStream()
      .to('out', { valueSerde: L }),
  repartition: (b) =>
    b
      .stream<string, string>('in')
      .selectKey((_k, v) => (v === 'none' ? null : v))
      .repartition()
      .to('out'),
  'to-table': (b) => b.stream<string, string>('in').toTable().toStream().to('out'),
  'table-source': (b) => b.table<string, string>('in').toStream().to('out'),
  'table-filter-map-values': (b) =>
    b
      .table<string, string>('in')
      .filter((_k, v) => v.length > 2)
      .mapValues((v) => `${v}!`)
      .toStream()
      .to('out'),
  'table-filter-shared': (b) => {
    const filtered = b.table<string, string>('in').filter((_k, v) => v.length > 2);
    filtered.toStream().to('out');
    filtered
      .groupBy((k, v) => ({ key: v, value: k }))
      .count()
      .toStream()
      .to('counts', { valueSerde: L });
  },
  'table-group-by-count': (b) =>
    b
      .table<string, string>('in')
      .groupBy((k, v) => ({ key: v, value: k }))
      .count()
      .toStream()
      .to('out', { valueSerde: L }),
  'table-group-by-sums': (b) => {
    const grouped = b
      .table<string, string>('in')
      .groupBy((_k, v) => ({ key: v.split(':')[0]!, value: Number(v.split(':')[1]) }), {
        keySerde: S,
        valueSerde: L,
      });
    grouped
      .reduce(
        (a, v) => a + v,
        (a, v) => a - v,
        { valueSerde: L },
      )
      .toStream()
      .to('reduced', { valueSerde: L });
    grouped
      .aggregate(
        () => 0,
        (_k, v, a) => a + v,
        (_k, v, a) => a - v,
        { valueSerde: L },
      )
      .toStream()
      .to('aggregated', { valueSerde: L });
  },
  ...slidingSessionTopologies,
};

export function ourTopology(name: string): Topology {
  const build =
    topologies[name] ??
    suppressTopologies[name] ??
    joinTableTopologies[name] ??
    joinFkTopologies[name] ??
    joinStreamTopologies[name] ??
    cacheTopologies[name] ??
    eventTimeTopologies[name] ??
    partitionerTopologies[name] ??
    cogroupTopologies[name] ??
    patternTopologies[name] ??
    versionedTopologies[name] ??
    headersTopologies[name];
  if (build === undefined) throw new Error(`No topology named ${name} in the differential scenarios`);
  const builder = new StreamsBuilder();
  build(builder);
  return builder.build();
}

/** Records of topic 'in': [key, value, timestamp]. */
const into = (records: Array<[string | null, string | null, number]>): ScenarioInput[] =>
  records.map(([key, value, timestamp]) => ({ topic: 'in', key, value, timestamp }));

const out = { topic: 'out', value: 'string' } as const;
const longOut = (topic: string) => ({ topic, value: 'long' }) as const;

/** Tombstones for absent and present keys, a null key, a late record. */
const tableInput = into([
  ['a', '1', 10],
  ['b', null, 11],
  ['a', null, 12],
  ['a', null, 13],
  [null, 'x', 14],
  ['a', '2', 5],
]);

/** Out-of-order, late, null-key and null-value records for the window scenarios. */
const windowInput = into([
  ['a', 'x', 1],
  ['b', 'yy', 4],
  ['a', 'zzz', 8],
  ['a', 'w', 12],
  ['a', 'late', 6],
  ['b', 'v', 9],
  [null, 'n', 13],
  ['a', null, 14],
  ['b', 'u', 16],
  ['a', 'old', 3],
  ['a', 't', 25],
  ['b', 's', 11],
]);

export const scenarios: Scenario[] = [
  {
    name: 'filter, mapValues, flatMapValues and map keep each input timestamp',
    topology: 'stateless',
    inputs: into([
      ['a', 'hello world', 10],
      [null, 'x y', 5],
      ['b', 'skip', 7],
      ['c', 'one', 3],
    ]),
    outputs: [out],
  },
  {
    name: 'groupBy().count(): late records, null values (null group) and null input keys',
    topology: 'group-by-count',
    inputs: into([
      ['k1', 'apple', 100],
      ['k2', 'pear', 50],
      ['k3', 'apple', 60],
      ['k4', null, 70],
      [null, 'pear', 40],
      ['k5', 'apple', 200],
    ]),
    outputs: [longOut('out')],
  },
  {
    name: 'tumbling windows without grace: a record for a closed window is dropped',
    topology: 'tumbling-count',
    inputs: windowInput,
    outputs: [longOut('out')],
  },
  {
    name: 'tumbling windows with grace: out-of-order records within the grace count',
    topology: 'tumbling-grace-count',
    inputs: windowInput,
    outputs: [longOut('out')],
  },
  {
    name: 'hopping windows: a record in every window that contains it, grace, late records',
    topology: 'hopping-count',
    inputs: windowInput,
    outputs: [longOut('out')],
  },
  {
    name: 'windowed reduce and aggregate: timestamps, null keys skipped, null values aggregated',
    topology: 'windowed-reduce-aggregate',
    inputs: windowInput,
    outputs: [{ topic: 'reduced', value: 'string' }, longOut('lengths')],
  },
  {
    // Java tools read our changelogs: plain values, the aggregate's timestamp as the record's.
    name: "an aggregation's changelog: Kafka Streams' byte format and timestamps",
    topology: 'named-count-changelog',
    inputs: into([
      ['a', 'x', 100],
      ['a', 'y', 50],
      ['b', 'z', 10],
      ['a', 'w', 120],
    ]),
    outputs: [longOut('out'), longOut('differential-counts-changelog')],
  },
  {
    name: 'groupByKey() count, reduce and aggregate: late records, null keys and values skipped',
    topology: 'group-by-key-aggregations',
    inputs: into([
      ['a', 'x', 100],
      ['a', 'yy', 50],
      ['b', 'zzz', 10],
      [null, 'q', 20],
      ['a', null, 300],
      ['b', 'w', 5],
      ['a', 'vvvv', 120],
    ]),
    outputs: [longOut('counts'), { topic: 'reduced', value: 'string' }, longOut('lengths')],
  },
  {
    name: 'selectKey().groupByKey().count(): null keys never reach the repartition topic',
    topology: 'select-key-count',
    inputs: into([
      ['k', 'apple', 10],
      ['k', 'avocado', 5],
      ['k', 'none', 20],
      ['k', 'banana', 1],
      ['k', 'apricot', 30],
    ]),
    outputs: [longOut('out')],
  },
  {
    name: 'repartition() drops null keys',
    topology: 'repartition',
    inputs: into([
      ['k', 'a', 10],
      ['k', 'none', 11],
      [null, 'b', 12],
      ['k', 'a', 9],
    ]),
    outputs: [out],
  },
  {
    name: 'toTable(): tombstones for absent keys are forwarded, null keys dropped',
    topology: 'to-table',
    inputs: tableInput,
    outputs: [out],
  },
  {
    name: 'table(): tombstones for absent keys are forwarded, null keys dropped',
    topology: 'table-source',
    inputs: tableInput,
    outputs: [out],
  },
  {
    name: 'KTable filter and mapValues',
    topology: 'table-filter-map-values',
    inputs: into([
      ['a', 'xy', 5],
      ['a', 'xyz', 6],
      ['a', 'xy', 7],
      ['b', null, 8],
      ['c', 'long', 9],
      ['c', null, 10],
    ]),
    outputs: [out],
  },
  {
    name: 'KTable filter with a re-grouping downstream: only real deletions reach its other child',
    topology: 'table-filter-shared',
    inputs: into([
      ['a', 'xy', 5],
      ['a', 'xyz', 6],
      ['a', 'xy', 7],
      ['b', null, 8],
      ['c', 'long', 9],
    ]),
    outputs: [out, longOut('counts')],
  },
  {
    name: 'KTable groupBy().count(): rows moving between groups, deleted rows, late updates',
    topology: 'table-group-by-count',
    inputs: into([
      ['alice', 'eu', 100],
      ['bob', 'eu', 40],
      ['alice', 'us', 70],
      ['bob', null, 80],
      ['carol', 'us', 10],
      ['dave', null, 5],
    ]),
    outputs: [longOut('out')],
  },
  {
    name: 'KTable groupBy() reduce and aggregate with subtractors',
    topology: 'table-group-by-sums',
    inputs: into([
      ['i1', 'fruit:3', 100],
      ['i2', 'fruit:5', 50],
      ['i1', 'veg:2', 70],
      ['i2', 'fruit:7', 60],
      ['i2', null, 200],
      ['i3', 'veg:1', 10],
    ]),
    outputs: [longOut('reduced'), longOut('aggregated')],
  },
  ...slidingSessionScenarios,
  ...suppressScenarios,
  ...joinTableScenarios,
  ...joinFkScenarios,
  ...joinStreamScenarios,
  ...cacheScenarios,
  ...lateInputScenarios,
  ...eventTimeScenarios,
  ...partitionerScenarios,
  ...cogroupScenarios,
  ...patternScenarios,
  ...versionedScenarios,
  ...headersScenarios,
];

// The cogroup scenarios (issue 38, KIP-150): CogroupTopologies.java builds the same topologies
// with Kafka Streams. Three grouped streams into one store: in-a and in-b grouped by key, in-c
// re-keyed by the value's part before ':' (its own repartition topic, named after the store);
// each aggregator appends "<stream><value>;" so that the output shows the path of every value.
// describe() is compared too: names, repartition nodes and sub-topologies as Java prints them.

import type { Scenario, ScenarioInput } from '../../../../scripts/differential/kafka-streams.ts';
import {
  type CogroupedKStream,
  SessionWindows,
  SlidingWindows,
  type StreamsBuilder,
  TimeWindows,
} from '../../src/kstream/index.ts';
import type { Windowed } from '../../src/windowed.ts';

const tagged =
  (tag: string) =>
  (_key: string, value: string, aggregate: string): string =>
    `${aggregate}${tag}${value};`;

/** The value's part before ':' (null for a null value: the record is then skipped). */
const prefix = (_k: string, v: string | null): string =>
  (v === null ? null : v.slice(0, v.indexOf(':'))) as string;

const windowName = (key: Windowed<string>) => `${key.key}@${key.window.start}/${key.window.end}`;

function three(b: StreamsBuilder, bees?: string): CogroupedKStream<string, string> {
  const a = b.stream<string, string>('in-a').groupByKey();
  const inB = b.stream<string, string>('in-b');
  const grouped = bees === undefined ? inB.groupByKey() : inB.selectKey(prefix).groupByKey({ name: bees });
  const c = b.stream<string, string>('in-c').selectKey(prefix).groupByKey();
  return a.cogroup<string>(tagged('a')).cogroup(grouped, tagged('b')).cogroup(c, tagged('c'));
}

export const cogroupTopologies: Record<string, (builder: StreamsBuilder) => void> = {
  'cogroup-three': (b) => {
    three(b)
      .aggregate(() => '')
      .toStream()
      .to('out');
  },
  'cogroup-named': (b) => {
    three(b, 'bees')
      .aggregate(() => '', { name: 'tags', storeName: 'tag-store' })
      .toStream()
      .to('out');
  },
  'cogroup-time-windows': (b) => {
    three(b)
      .windowedBy(TimeWindows.ofSizeAndGrace(1000, 200))
      .aggregate(() => '')
      .toStream()
      .selectKey(windowName)
      .to('out');
  },
  'cogroup-sliding-windows': (b) => {
    three(b)
      .windowedBy(SlidingWindows.ofTimeDifferenceAndGrace(500, 100))
      .aggregate(() => '')
      .toStream()
      .selectKey(windowName)
      .to('out');
  },
  'cogroup-session-windows': (b) => {
    three(b)
      .windowedBy(SessionWindows.ofInactivityGapAndGrace(500, 100))
      .aggregate(
        () => '',
        (_k, left, right) => `${left}|${right}`,
      )
      .toStream()
      .selectKey(windowName)
      .to('out');
  },
};

const records = (list: Array<[string, string | null, string | null, number]>): ScenarioInput[] =>
  list.map(([topic, key, value, timestamp]) => ({ topic, key, value, timestamp }));

/** Keys k1 and k2 through all three streams; in-c's key comes from its value; nulls skipped. */
const plainInput = records([
  ['in-a', 'k1', 'k1:1', 10],
  ['in-b', 'k1', 'k1:2', 20],
  ['in-c', 'x', 'k1:3', 30],
  ['in-a', 'k2', 'k2:4', 15],
  ['in-c', 'y', 'k2:5', 5],
  ['in-b', 'k2', 'k2:6', 40],
  ['in-a', null, 'k1:7', 50],
  ['in-b', 'k1', null, 60],
  ['in-a', 'k1', 'k1:8', 25],
]);

/** Times across windows and sessions, out of order, with late records past the grace. */
const timedInput = records([
  ['in-a', 'k1', 'k1:1', 100],
  ['in-b', 'k1', 'k1:2', 400],
  ['in-c', 'x', 'k1:3', 900],
  ['in-a', 'k2', 'k2:4', 950],
  ['in-b', 'k1', 'k1:5', 1100],
  ['in-c', 'y', 'k1:6', 700],
  ['in-a', 'k1', 'k1:7', 2000],
  ['in-b', 'k2', 'k2:8', 1500],
  ['in-c', 'z', 'k1:9', 1300],
  ['in-a', 'k1', 'k1:10', 800],
  ['in-b', 'k1', 'k1:11', 2600],
  ['in-c', 'w', 'k2:12', 1480],
]);

const out = [{ topic: 'out', value: 'string' }] as const;

export const cogroupScenarios: Scenario[] = [
  {
    name: 'cogroup of three grouped streams (one re-keyed) into one store',
    topology: 'cogroup-three',
    inputs: plainInput,
    outputs: [...out],
    describe: true,
  },
  {
    name: 'cogroup named: Named processors, Materialized store, a Grouped repartition name',
    topology: 'cogroup-named',
    inputs: plainInput,
    outputs: [...out],
    describe: true,
  },
  {
    name: 'cogroup windowed by time windows (size 1000, grace 200)',
    topology: 'cogroup-time-windows',
    inputs: timedInput,
    outputs: [...out],
    describe: true,
  },
  {
    name: 'cogroup windowed by sliding windows (difference 500, grace 100)',
    topology: 'cogroup-sliding-windows',
    inputs: timedInput,
    outputs: [...out],
    describe: true,
  },
  {
    name: 'cogroup windowed by session windows (gap 500, grace 100): merges and tombstones',
    topology: 'cogroup-session-windows',
    inputs: timedInput,
    outputs: [...out],
    describe: true,
  },
];

// The differential scenarios of suppression and emit-on-window-close (issue 12), next to
// scenarios.ts, which merges them in. Each topology has a namesake in Differential.java's
// suppression block. Windowed tables are suppressed with explicit serdes on both sides: Java's
// buffer serializes the windowed key, and its default String serde cannot.
import type { Scenario, ScenarioInput } from '../../../../scripts/differential/kafka-streams.ts';
import {
  BufferConfig,
  EmitStrategy,
  type StreamsBuilder,
  Suppressed,
  TimeWindows,
} from '../../src/kstream/index.ts';
import { Serdes } from '../../src/serdes/serdes.ts';
import type { Windowed } from '../../src/windowed.ts';

const S = Serdes.String();
const L = Serdes.Long();

const windowName = (key: Windowed<string>) => `${key.key}@${key.window.start}/${key.window.end}`;

function finalCounts(b: StreamsBuilder, windows: TimeWindows): void {
  b.stream<string, string>('in')
    .groupByKey()
    .windowedBy(windows)
    .count({ keySerde: S, valueSerde: L })
    .suppress(Suppressed.untilWindowCloses(BufferConfig.unbounded()))
    .toStream()
    .selectKey(windowName)
    .to('out', { valueSerde: L });
}

export const suppressTopologies: Record<string, (builder: StreamsBuilder) => void> = {
  'suppress-tumbling-final': (b) => finalCounts(b, TimeWindows.ofSizeAndGrace(10, 5)),
  'suppress-hopping-final': (b) => finalCounts(b, TimeWindows.ofSizeAndGrace(10, 2).advanceBy(5)),
  'suppress-final-filter': (b) =>
    b
      .stream<string, string>('in')
      .groupByKey()
      .windowedBy(TimeWindows.ofSizeAndGrace(10, 3))
      .count({ keySerde: S, valueSerde: L })
      .suppress(Suppressed.untilWindowCloses(BufferConfig.unbounded()).withName('finals'))
      .filter((_k, count) => count < 3)
      .toStream()
      .selectKey(windowName)
      .to('out', { valueSerde: L }),
  'suppress-time-limit-max-records': (b) =>
    b
      .table<string, string>('in')
      .groupBy((k, v) => ({ key: v, value: k }))
      .count()
      .suppress(Suppressed.untilTimeLimit(5, BufferConfig.maxRecords(2).emitEarlyWhenFull()))
      .toStream()
      .to('out', { valueSerde: L }),
  'suppress-time-limit-table': (b) =>
    b
      .table<string, string>('in')
      .suppress(Suppressed.untilTimeLimit(3, BufferConfig.maxRecords(3)))
      .toStream()
      .to('out'),
  'suppress-time-limit-max-bytes': (b) =>
    b
      .table<string, string>('in')
      .filter((_k, v) => v !== 'drop')
      .suppress(Suppressed.untilTimeLimit(20, BufferConfig.maxBytes(110).emitEarlyWhenFull()))
      .toStream()
      .to('out'),
  'emit-on-window-close': (b) =>
    b
      .stream<string, string>('in')
      .groupByKey()
      .windowedBy(TimeWindows.ofSizeAndGrace(10, 2).advanceBy(5))
      .emitStrategy(EmitStrategy.onWindowClose())
      .count({ keySerde: S, valueSerde: L, retentionMs: 100 })
      .toStream()
      .selectKey(windowName)
      .to('out', { valueSerde: L }),
};

const into = (records: Array<[string | null, string | null, number]>): ScenarioInput[] =>
  records.map(([key, value, timestamp]) => ({ topic: 'in', key, value, timestamp }));

/** Out-of-order and late records, null keys and values, then a record that closes every window. */
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
  ['c', 'r', 31],
  ['b', 'q', 27],
  ['z', 'flush', 100],
]);

const longOut = [{ topic: 'out', value: 'long' }] as const;

export const suppressScenarios: Scenario[] = [
  {
    name: 'suppress untilWindowCloses, tumbling windows with grace: one final result per window',
    topology: 'suppress-tumbling-final',
    inputs: windowInput,
    outputs: [...longOut],
  },
  {
    name: 'suppress untilWindowCloses, hopping windows with grace and late records',
    topology: 'suppress-hopping-final',
    inputs: windowInput,
    outputs: [...longOut],
  },
  {
    name: 'suppress untilWindowCloses, named, then a filter: rows that fail it come out as deletions',
    topology: 'suppress-final-filter',
    inputs: windowInput,
    outputs: [...longOut],
  },
  {
    name: 'suppress untilTimeLimit with maxRecords and emitEarlyWhenFull, rows moving between groups',
    topology: 'suppress-time-limit-max-records',
    inputs: into([
      ['alice', 'eu', 0],
      ['bob', 'eu', 1],
      ['carol', 'us', 2],
      ['dave', 'asia', 3],
      ['alice', 'us', 4],
      ['erin', 'eu', 6],
      ['bob', null, 7],
      ['frank', 'us', 9],
      ['carol', 'asia', 8],
      ['gina', 'eu', 20],
    ]),
    outputs: [...longOut],
  },
  {
    name: 'suppress untilTimeLimit on a source table: tombstones (also for absent keys) are emitted',
    topology: 'suppress-time-limit-table',
    inputs: into([
      ['a', '1', 10],
      ['b', null, 11],
      ['a', null, 12],
      ['c', '2', 12],
      ['a', '3', 13],
      ['d', '4', 13],
      ['e', '5', 14],
      [null, 'x', 14],
      ['c', '6', 9],
      ['f', '7', 30],
    ]),
    outputs: [{ topic: 'out', value: 'string' }],
  },
  {
    name: 'emitStrategy onWindowClose, hopping windows with grace: each final result once',
    topology: 'emit-on-window-close',
    inputs: windowInput,
    outputs: [...longOut],
  },
  {
    // Kafka Streams' size estimate decides which entries go early: values of different lengths,
    // updates (prior and old value both counted), and a filter upstream that now sends old values.
    name: 'suppress untilTimeLimit with maxBytes after a filter: evictions by size estimate',
    topology: 'suppress-time-limit-max-bytes',
    inputs: into([
      ['a', 'x', 1],
      ['b', 'yyyyyyyyyy', 2],
      ['a', 'xx', 3],
      ['c', 'drop', 4],
      ['c', 'z', 5],
      ['d', 'wwwwwwwwwwwwwwwwwwww', 6],
      ['b', 'drop', 7],
      ['e', 'v', 8],
      ['a', 'drop', 9],
      ['f', 'u', 40],
    ]),
    outputs: [{ topic: 'out', value: 'string' }],
  },
];

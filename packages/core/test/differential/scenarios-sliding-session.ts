// The sliding- and session-window scenarios of the differential harness (their Java topologies
// are one block in Differential.java): KIP-450's window creation (early records, out-of-order
// ones, grace and late records), session merges with their tombstones, the merger, grace, and the
// store's retention hiding sessions (Kafka Streams' own behaviour with the DSL guide's example).
import type { Scenario, ScenarioInput } from '../../../../scripts/differential/kafka-streams.ts';
import { SessionWindows, SlidingWindows, type StreamsBuilder } from '../../src/kstream/index.ts';
import { Serdes } from '../../src/serdes/serdes.ts';
import type { Windowed } from '../../src/windowed.ts';

const S = Serdes.String();
const L = Serdes.Long();
const MINUTE = 60_000;

const windowName = (key: Windowed<string>) => `${key.key}@${key.window.start}/${key.window.end}`;

export const slidingSessionTopologies: Record<string, (builder: StreamsBuilder) => void> = {
  'sliding-count': (b) =>
    b
      .stream<string, string>('in')
      .groupByKey()
      .windowedBy(SlidingWindows.ofTimeDifferenceWithNoGrace(10))
      .count()
      .toStream()
      .selectKey(windowName)
      .to('out', { valueSerde: L }),
  'sliding-grace-reduce-aggregate': (b) => {
    const sliding = b
      .stream<string, string>('in')
      .groupByKey()
      .windowedBy(SlidingWindows.ofTimeDifferenceAndGrace(10, 5));
    sliding
      .reduce((a, v) => `${a}+${v}`)
      .toStream()
      .selectKey(windowName)
      .to('reduced');
    sliding
      .aggregate(
        () => 0,
        (_k, v, total) => total + v.length,
        { valueSerde: L },
      )
      .toStream()
      .selectKey(windowName)
      .to('lengths', { valueSerde: L });
  },
  'session-count': (b) =>
    b
      .stream<string, string>('in')
      .groupByKey()
      .windowedBy(SessionWindows.ofInactivityGapWithNoGrace(5))
      .count()
      .toStream()
      .selectKey(windowName)
      .to('out', { valueSerde: L }),
  'session-grace-aggregations': (b) => {
    const sessions = b
      .stream<string, string>('in')
      .groupByKey()
      .windowedBy(SessionWindows.ofInactivityGapAndGrace(5, 3));
    sessions.count().toStream().selectKey(windowName).to('counts', { valueSerde: L });
    sessions
      .reduce((a, v) => `${a}+${v}`)
      .toStream()
      .selectKey(windowName)
      .to('reduced');
    sessions
      .aggregate(
        () => 0,
        (_k, v, total) => total + (v === null ? 100 : v.length),
        // Not commutative, so that the order in which sessions are merged shows.
        (_k, a, b) => a * 1000 + b,
        { valueSerde: L },
      )
      .toStream()
      .selectKey(windowName)
      .to('lengths', { valueSerde: L });
  },
  'session-docs-example': (b) =>
    b
      .stream<string, string>('in')
      .groupByKey()
      .windowedBy(SessionWindows.ofInactivityGapWithNoGrace(5 * MINUTE))
      .count()
      .toStream()
      .selectKey(windowName)
      .to('out', { valueSerde: L }),
  'session-docs-example-retention': (b) =>
    b
      .stream<string, string>('in')
      .groupByKey()
      .windowedBy(SessionWindows.ofInactivityGapWithNoGrace(5 * MINUTE))
      .count({ keySerde: S, valueSerde: L, retentionMs: 10 * MINUTE })
      .toStream()
      .selectKey(windowName)
      .to('out', { valueSerde: L }),
  'session-merge-same-bounds': (b) => {
    // Issue 38: a record inside a session (the merged window keeps its bounds) still removes the
    // old session, with a tombstone, before the merged result.
    const sessions = b
      .stream<string, string>('in')
      .groupByKey()
      .windowedBy(SessionWindows.ofInactivityGapAndGrace(15_000, 5_000));
    sessions.count().toStream().selectKey(windowName).to('out', { valueSerde: L });
    sessions
      .reduce((a, v) => `${a}+${v}`)
      .toStream()
      .selectKey(windowName)
      .to('reduced');
  },
};

const into = (records: Array<[string | null, string | null, number]>): ScenarioInput[] =>
  records.map(([key, value, timestamp]) => ({ topic: 'in', key, value, timestamp }));
const longOut = (topic: string) => ({ topic, value: 'long' }) as const;

/** Early records (before the time difference), in-order and out-of-order ones, two keys. */
const slidingInput = into([
  ['a', 'x', 1],
  ['a', 'yy', 4],
  ['b', 'zzz', 6],
  ['a', 'w', 9],
  ['c', 'k', 8], // early records out of order: [0;10] and their right windows
  ['c', 'j', 3],
  ['c', 'i', 5],
  ['c', 'h', 12],
  ['c', 'g', 1], // late without grace (1 + 10 < 12), in time with it
  ['a', 'v', 15],
  ['a', 'uu', 12], // out of order, inside existing windows
  ['b', 'ttt', 30],
  ['a', 'ss', 40],
  ['a', 'r', 38],
  ['a', 'q', 40], // a second record at the same time
  ['b', 'p', 31],
  ['a', null, 41], // null value: skipped by sliding windows
  [null, 'n', 42], // null key: skipped
  ['a', 'o', 52],
  ['a', 'late', 29], // 29 + 10 < 52 - 5: late
  ['a', 'm', 40], // in time: 40 + 10 >= 47, but its left window [30;40] has closed
]);

/** Bridges between sessions, extensions on each side, late records, null keys and values. */
const sessionInput = into([
  ['a', 'x', 10],
  ['a', 'yy', 20],
  ['b', 'zzz', 12],
  ['a', 'w', 15], // bridges [10;10] and [20;20]
  ['a', 'v', 24], // extends [10;20]
  ['b', 'u', 8], // extends [12;12] backwards
  ['a', null, 30], // null value: counted, a new session
  [null, 'n', 31], // null key: skipped
  ['a', 'tt', 27], // bridges [10;24] and [30;30]
  ['b', 'late', 2], // 2 < 30 - 5 - grace
  ['a', 'ss', 40],
  ['a', 'r', 36], // bridges again
  ['b', 'q', 60],
  ['a', 'old', 33], // merged session ends 40 < 60 - 5 - 3: late
]);

/** Kafka Streams' DSL guide: green at 0, 6, 4 minutes, blue at 2, 5, 11 minutes. */
const docsInput = into([
  ['green', 'x', 0],
  ['green', 'x', 6 * MINUTE],
  ['blue', 'x', 2 * MINUTE],
  ['green', 'x', 4 * MINUTE],
  ['blue', 'x', 5 * MINUTE],
  ['blue', 'x', 11 * MINUTE],
]);

/**
 * Many records, two keys, timestamps moving forward with jumps back of up to 15 ms (some within
 * grace, some late), a fixed seed: the algorithms' corners that hand-picked input may miss.
 */
function shuffledInput(seed: number, count: number): ScenarioInput[] {
  let state = seed;
  const next = (n: number) => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return Math.floor(state / 65_536) % n; // the high bits: an LCG's low bits cycle quickly
  };
  const records: Array<[string, string, number]> = [];
  let time = 0;
  for (let i = 0; i < count; i++) {
    time += next(6);
    const timestamp = Math.max(0, time - (next(3) === 0 ? next(16) : 0));
    records.push([`k${next(2)}`, `v${i}`, timestamp]);
  }
  return into(records);
}

/** a@1000-16000 (merged at exactly the gap), then records inside it, on its bounds, and past them. */
const sameBoundsInput = into([
  ['a', 'p', 1_000],
  ['a', 'q', 16_000], // exactly the gap after: one session a@1000-16000
  ['a', 'r', 5_000], // inside: same bounds, tombstone of a@1000-16000 then a@1000-16000
  ['a', 's', 16_000], // on its end
  ['a', 't', 1_000], // on its start
  ['b', 'u', 20_000],
  ['b', 'v', 20_000], // a one-point session hit again: [t;t] is the record's own window, no tombstone
  ['a', 'w', 31_000], // extends to a@1000-31000
  ['a', 'x', 12_000], // inside again, within grace
]);

export const slidingSessionScenarios: Scenario[] = [
  {
    name: 'session merge keeping the bounds: tombstone of the old session, then the merged result',
    topology: 'session-merge-same-bounds',
    inputs: sameBoundsInput,
    outputs: [longOut('out'), { topic: 'reduced', value: 'string' }],
  },
  {
    // The driver commits after each record: the cache holds the tombstone and the merged result
    // under one key, so only the result goes out (Kafka Streams' caching session store does so).
    name: 'session merge keeping the bounds, with the record cache',
    topology: 'session-merge-same-bounds',
    inputs: sameBoundsInput,
    outputs: [longOut('out'), { topic: 'reduced', value: 'string' }],
    cacheMaxBytes: 10 * 1024 * 1024,
  },
  {
    name: 'sliding count: early records, right windows, no empty windows',
    topology: 'sliding-count',
    inputs: slidingInput,
    outputs: [longOut('out')],
  },
  {
    name: 'sliding reduce and aggregate with grace: late records, null keys and values',
    topology: 'sliding-grace-reduce-aggregate',
    inputs: slidingInput,
    outputs: [{ topic: 'reduced', value: 'string' }, longOut('lengths')],
  },
  {
    // Without grace a session is past the store's retention (gap + grace) once a later one exists,
    // so nothing bridges two sessions here, in Kafka Streams too: a record joins the newest only.
    name: 'session count without grace: extensions (tombstone, then the longer session), no bridging',
    topology: 'session-count',
    inputs: sessionInput,
    outputs: [longOut('out')],
  },
  {
    name: 'session count, reduce and aggregate with grace: a bridge merges two sessions with the merger',
    topology: 'session-grace-aggregations',
    inputs: sessionInput,
    outputs: [longOut('counts'), { topic: 'reduced', value: 'string' }, longOut('lengths')],
  },
  {
    name: 'session DSL guide example, default retention (gap + grace hides the old session)',
    topology: 'session-docs-example',
    inputs: docsInput,
    outputs: [longOut('out')],
  },
  {
    name: 'session DSL guide example with a 10-minute retention (the guide’s merge)',
    topology: 'session-docs-example-retention',
    inputs: docsInput,
    outputs: [longOut('out')],
  },
  {
    name: 'sliding reduce and aggregate with grace over 300 shuffled records',
    topology: 'sliding-grace-reduce-aggregate',
    inputs: shuffledInput(7, 300),
    outputs: [{ topic: 'reduced', value: 'string' }, longOut('lengths')],
  },
  {
    name: 'session count, reduce and aggregate with grace over 300 shuffled records',
    topology: 'session-grace-aggregations',
    inputs: shuffledInput(11, 300),
    outputs: [longOut('counts'), { topic: 'reduced', value: 'string' }, longOut('lengths')],
  },
];

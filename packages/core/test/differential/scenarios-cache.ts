// The record-cache scenarios (issue 18): CachedTopologies.java builds the same topologies with
// Kafka Streams. Both drivers run with the default cache (10 MiB) and commit after each record,
// so the cache merges the updates one record makes to one key: a count of "a b a" sends a=2 once.
import type { Scenario, ScenarioInput } from '../../../../scripts/differential/kafka-streams.ts';
import { SessionWindows, SlidingWindows, type StreamsBuilder, TimeWindows } from '../../src/kstream/index.ts';
import { Serdes } from '../../src/serdes/serdes.ts';
import type { Windowed } from '../../src/windowed.ts';

const L = Serdes.Long();
const CACHE_BYTES = 10 * 1024 * 1024;

const windowName = (key: Windowed<string>) => `${key.key}@${key.window.start}/${key.window.end}`;

const words = (b: StreamsBuilder) =>
  b
    .stream<string, string>('in')
    .flatMapValues((v) => v.split(' '))
    .groupByKey();

export const cacheTopologies: Record<string, (builder: StreamsBuilder) => void> = {
  'cache-words-count': (b) => words(b).count().toStream().to('out', { valueSerde: L }),
  'cache-words-count-uncached': (b) =>
    words(b).count({ storeName: 'uncached', cachingEnabled: false }).toStream().to('out', { valueSerde: L }),
  'cache-words-aggregate-deletes': (b) =>
    words(b)
      .aggregate(
        () => '',
        (_k, v, agg) => (v === 'del' ? (null as unknown as string) : agg + v),
        { valueSerde: Serdes.String() },
      )
      .toStream()
      .to('out'),
  'cache-table-named': (b) => b.table<string, string>('in', {}, { storeName: 'tstore' }).toStream().to('out'),
  'cache-words-windowed': (b) => {
    const grouped = words(b);
    grouped
      .windowedBy(TimeWindows.ofSizeAndGrace(10, 5))
      .count()
      .toStream()
      .selectKey(windowName)
      .to('tumbling', { valueSerde: L });
    grouped
      .windowedBy(SlidingWindows.ofTimeDifferenceAndGrace(5, 5))
      .count()
      .toStream()
      .selectKey(windowName)
      .to('sliding', { valueSerde: L });
    grouped
      .windowedBy(SessionWindows.ofInactivityGapAndGrace(5, 5))
      .count()
      .toStream()
      .selectKey(windowName)
      .to('sessions', { valueSerde: L });
  },
};

const into = (records: Array<[string, string, number]>): ScenarioInput[] =>
  records.map(([key, value, timestamp]) => ({ topic: 'in', key, value, timestamp }));

/** Repeated words in one record, the same key across records, out-of-order and late records. */
const wordInput = into([
  ['k', 'a b a', 1],
  ['k', 'a', 3],
  ['j', 'b b b b', 4],
  ['k', 'c a c', 12],
  ['k', 'a a', 2],
  ['j', 'b', 9],
  ['k', 'd d', 30],
  ['j', 'b b', 6],
]);

const longOut = (topic: string) => ({ topic, value: 'long' }) as const;

export const cacheScenarios: Scenario[] = [
  {
    name: 'record cache: a count forwards one update per key and record, with the latest timestamp',
    topology: 'cache-words-count',
    inputs: wordInput,
    outputs: [longOut('out')],
    cacheMaxBytes: CACHE_BYTES,
  },
  {
    name: 'record cache: Materialized cachingEnabled false forwards every update',
    topology: 'cache-words-count-uncached',
    inputs: wordInput,
    outputs: [longOut('out')],
    cacheMaxBytes: CACHE_BYTES,
  },
  {
    name: 'record cache: a row created and deleted between two flushes sends nothing; a deleted row a tombstone',
    topology: 'cache-words-aggregate-deletes',
    inputs: into([
      ['k', 'a b del', 1],
      ['j', 'x', 2],
      ['j', 'y del z', 3],
      ['j', 'del', 4],
      ['k', 'q del', 5],
    ]),
    outputs: [{ topic: 'out', value: 'string' }],
    cacheMaxBytes: CACHE_BYTES,
  },
  {
    name: 'record cache: tumbling, sliding and session counts forward each window once per record',
    topology: 'cache-words-windowed',
    inputs: wordInput,
    outputs: [longOut('tumbling'), longOut('sliding'), longOut('sessions')],
    cacheMaxBytes: CACHE_BYTES,
  },
  {
    // Without a cache too: the words of one record reach the asynchronous sliding and session
    // processors one at a time (each reads what the one before wrote).
    name: 'no record cache: tumbling, sliding and session counts of several words per record',
    topology: 'cache-words-windowed',
    inputs: wordInput,
    outputs: [longOut('tumbling'), longOut('sliding'), longOut('sessions')],
  },
  {
    name: 'record cache: a named (queryable) table sends no tombstone for a key it does not hold',
    topology: 'cache-table-named',
    inputs: into([
      ['a', '1', 10],
      ['b', null as unknown as string, 11],
      ['a', null as unknown as string, 12],
      ['a', null as unknown as string, 13],
      ['a', '2', 5],
    ]),
    outputs: [{ topic: 'out', value: 'string' }],
    cacheMaxBytes: CACHE_BYTES,
  },
];

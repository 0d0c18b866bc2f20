// The headers-in-state scenarios (issue 39, KIP-1271/1285): HeadersTopologies.java builds the same
// topologies with Kafka Streams. Input records carry trace headers. With dslStoreFormat 'HEADERS'
// (and without, for comparison) count, reduce and aggregate and a regrouped table run on
// headers-aware stores: the outputs with their headers, the changelogs byte for byte with their
// timestamps and headers, and which stores each side made headers-aware. The same for the window,
// sliding-window and session stores and a stream-stream join's stores (KIP-1285's later part, Kafka
// Streams 4.4), whose headers-aware stores keep each record's headers. A Processor API store
// keeps each record's headers: its changelog carries them, and a later record reads them back.
import type { Scenario, ScenarioInput } from '../../../../scripts/differential/kafka-streams.ts';
import {
  JoinWindows,
  SessionWindows,
  SlidingWindows,
  type StreamsBuilder,
  TimeWindows,
} from '../../src/kstream/index.ts';
import type { ProcessorContext } from '../../src/processor/processor.ts';
import type { Record as StreamRecord } from '../../src/processor/record.ts';
import { Serdes } from '../../src/serdes/serdes.ts';
import { type KeyValueStore, Stores, type ValueTimestampHeaders } from '../../src/state/index.ts';
import type { Windowed } from '../../src/windowed.ts';

const S = Serdes.String();
const L = Serdes.Long();
const windowName = (key: Windowed<string>) => `${key.key}@${key.window.start}/${key.window.end}`;

/** Keeps each record's value, timestamp and headers; forwards the value with the headers kept before it. */
class KeepWithHeaders {
  private ctx!: ProcessorContext<string, string>;
  private store!: KeyValueStore<string, ValueTimestampHeaders<string>>;
  init(ctx: ProcessorContext<string, string>): void {
    this.ctx = ctx;
    this.store = ctx.getStateStore('kept');
  }
  process(record: StreamRecord<string, string>): void {
    const before = this.store.get(record.key);
    this.store.put(record.key, { value: record.value, timestamp: record.timestamp, headers: record.headers });
    const previous = before === undefined ? '-' : `${before.value}@${before.timestamp}`;
    this.ctx.forward(
      record.withValue(previous).withHeaders(before === undefined ? record.headers : before.headers),
    );
  }
}

export const headersTopologies: Record<string, (builder: StreamsBuilder) => void> = {
  'headers-aggregations': (b) => {
    const grouped = b.stream<string, string>('in').groupByKey();
    grouped.count({ storeName: 'counts' }).toStream().to('counts', { valueSerde: L });
    grouped
      .reduce((a, v) => `${a}+${v}`, { storeName: 'reduced' })
      .toStream()
      .to('reduced');
    grouped
      .aggregate(
        () => 0,
        (_k, v, n) => n + v.length,
        { storeName: 'lengths', valueSerde: L },
      )
      .toStream()
      .to('lengths', { valueSerde: L });
    b.table<string, string>('table-in', {}, { storeName: 't' })
      .groupBy((k, v) => ({ key: v, value: k }))
      .count({ storeName: 'by-value' })
      .toStream()
      .to('by-value', { valueSerde: L });
  },
  'headers-windows': (b) => {
    const grouped = b.stream<string, string>('in').groupByKey();
    grouped
      .windowedBy(TimeWindows.ofSizeAndGrace(10, 5))
      .count({ storeName: 'win-counts' })
      .toStream()
      .selectKey(windowName)
      .to('win-counts', { valueSerde: L });
    grouped
      .windowedBy(SlidingWindows.ofTimeDifferenceAndGrace(5, 5))
      .count({ storeName: 'slide-counts' })
      .toStream()
      .selectKey(windowName)
      .to('slide-counts', { valueSerde: L });
    grouped
      .windowedBy(SessionWindows.ofInactivityGapAndGrace(5, 5))
      .reduce((a, v) => `${a}+${v}`, { storeName: 'sessions' })
      .toStream()
      .selectKey(windowName)
      .to('sessions');
  },
  'headers-join': (b) => {
    b.stream<string, string>('left')
      .join(
        b.stream<string, string>('right'),
        (a, v) => `${a}+${v}`,
        JoinWindows.ofTimeDifferenceAndGrace(10, 5),
        {
          storeName: 'pair',
        },
      )
      .to('out');
  },
  'headers-left-join': (b) => {
    b.stream<string, string>('left')
      .leftJoin(
        b.stream<string, string>('right'),
        (a, v) => `${a}+${v}`,
        JoinWindows.ofTimeDifferenceAndGrace(10, 5),
        {
          storeName: 'lpair',
        },
      )
      .to('out');
  },
  'headers-processor-store': (b) => {
    b.addStateStore(Stores.timestampedKeyValueStoreWithHeadersBuilder('kept', S, S));
    b.stream<string, string>('in')
      .process(() => new KeepWithHeaders(), 'kept')
      .to('out');
  },
};

const trace = (span: string) => ({ traceparent: `00-4bf92f3577b34da6a3ce929d0e0e4736-${span}-01` });

/** Stream records with trace context (and one without), out of order; table updates and a tombstone. */
const inputs: ScenarioInput[] = [
  { topic: 'in', key: 'a', value: 'x', timestamp: 10, headers: trace('00f067aa0ba902b7') },
  {
    topic: 'in',
    key: 'a',
    value: 'yy',
    timestamp: 5,
    headers: { ...trace('00f067aa0ba902b8'), tenant: 't1' },
  },
  { topic: 'in', key: 'b', value: 'zzz', timestamp: 20 },
  { topic: 'in', key: 'a', value: 'w', timestamp: 30, headers: { tenant: 't2' } },
  { topic: 'table-in', key: 'r1', value: 'red', timestamp: 40, headers: trace('00f067aa0ba902b9') },
  { topic: 'table-in', key: 'r2', value: 'red', timestamp: 41, headers: { tenant: 't3' } },
  { topic: 'table-in', key: 'r1', value: 'blue', timestamp: 42, headers: trace('00f067aa0ba902ba') },
  { topic: 'table-in', key: 'r2', value: null, timestamp: 43, headers: { tenant: 't4' } },
];

const withHeaders = (topic: string, value: 'string' | 'long' | 'hex') => ({ topic, value, headers: true });
const changelog = (store: string) => withHeaders(`differential-${store}-changelog`, 'hex');
const aggregationOutputs = [
  withHeaders('counts', 'long'),
  withHeaders('reduced', 'string'),
  withHeaders('lengths', 'long'),
  withHeaders('by-value', 'long'),
  changelog('counts'),
  changelog('reduced'),
  changelog('lengths'),
  changelog('by-value'),
  // The table's: a tombstone in 'HEADERS' has the deleting record's timestamp and headers.
  changelog('t'),
];
const stores = ['counts', 'reduced', 'lengths', 't', 'by-value'];

/** Windows and sessions of one key, out of order, a late record past the grace, a merged session. */
const windowInputs: ScenarioInput[] = [
  { topic: 'in', key: 'a', value: 'x', timestamp: 1, headers: trace('00f067aa0ba902c1') },
  { topic: 'in', key: 'a', value: 'y', timestamp: 4, headers: { tenant: 't1' } },
  { topic: 'in', key: 'b', value: 'z', timestamp: 3 },
  { topic: 'in', key: 'a', value: 'w', timestamp: 12, headers: trace('00f067aa0ba902c2') },
  { topic: 'in', key: 'a', value: 'v', timestamp: 8, headers: { tenant: 't2' } },
  { topic: 'in', key: 'a', value: 'late', timestamp: 0, headers: { tenant: 't3' } },
  { topic: 'in', key: 'b', value: 'u', timestamp: 25, headers: trace('00f067aa0ba902c3') },
];
const windowOutputs = [
  withHeaders('win-counts', 'long'),
  withHeaders('slide-counts', 'long'),
  withHeaders('sessions', 'string'),
  changelog('win-counts'),
  changelog('slide-counts'),
  // A session store's changelog: kstreams stamps a put with the commit's time (Kafka Streams: the
  // record's), as its other plain stores; a tombstone in 'HEADERS' has the record's headers.
  { ...changelog('sessions'), timestamps: false },
];
const windowStores = ['win-counts', 'slide-counts', 'sessions'];

/** Both sides with trace headers; matches inside and outside the window, and a duplicate timestamp. */
const joinInputs: ScenarioInput[] = [
  { topic: 'left', key: 'k', value: 'L1', timestamp: 10, headers: trace('00f067aa0ba902d1') },
  { topic: 'right', key: 'k', value: 'R1', timestamp: 15, headers: { tenant: 't1' } },
  { topic: 'right', key: 'k', value: 'R2', timestamp: 10, headers: trace('00f067aa0ba902d2') },
  { topic: 'left', key: 'k', value: 'L2', timestamp: 30 },
  { topic: 'left', key: 'j', value: 'L3', timestamp: 31, headers: { tenant: 't2' } },
  { topic: 'right', key: 'j', value: 'R3', timestamp: 40, headers: trace('00f067aa0ba902d3') },
];
const joinOutputs = [
  withHeaders('out', 'string'),
  changelog('pair-this-join-store'),
  changelog('pair-other-join-store'),
];
const joinStores = ['pair-this-join-store', 'pair-other-join-store'];

export const headersScenarios: Scenario[] = [
  {
    name: 'headers through window, sliding-window and session stores, dsl.store.format=HEADERS',
    topology: 'headers-windows',
    dslStoreFormat: 'HEADERS',
    inputs: windowInputs,
    outputs: windowOutputs,
    storeFormats: windowStores,
  },
  {
    name: 'headers through window, sliding-window and session stores, default store format',
    topology: 'headers-windows',
    inputs: windowInputs,
    outputs: windowOutputs,
    storeFormats: windowStores,
  },
  {
    name: 'a stream-stream join keeps each record’s headers in its stores, dsl.store.format=HEADERS',
    topology: 'headers-join',
    dslStoreFormat: 'HEADERS',
    inputs: joinInputs,
    outputs: joinOutputs,
    storeFormats: joinStores,
  },
  {
    // The shared store of a left join keeps its format (Kafka Streams 4.4: DslStoreFormat.PLAIN).
    name: 'a stream-stream left join with trace headers, dsl.store.format=HEADERS',
    topology: 'headers-left-join',
    dslStoreFormat: 'HEADERS',
    inputs: joinInputs,
    outputs: [
      withHeaders('out', 'string'),
      changelog('lpair-this-join-store'),
      changelog('lpair-outer-other-join-store'),
      { topic: 'differential-lpair-left-shared-join-store-changelog', value: 'hex', timestamps: false },
    ],
    storeFormats: ['lpair-this-join-store', 'lpair-outer-other-join-store', 'lpair-left-shared-join-store'],
  },
  {
    name: 'a stream-stream join with trace headers, default store format',
    topology: 'headers-join',
    inputs: joinInputs,
    outputs: [withHeaders('out', 'string')],
    storeFormats: joinStores,
  },
  {
    name: 'headers through aggregations and a regrouped table, dsl.store.format=HEADERS (KIP-1285)',
    topology: 'headers-aggregations',
    dslStoreFormat: 'HEADERS',
    inputs,
    outputs: aggregationOutputs,
    storeFormats: stores,
  },
  {
    name: 'headers through aggregations and a regrouped table, default store format',
    topology: 'headers-aggregations',
    inputs,
    // A timestamped store's tombstone: kstreams stamps it with the commit's time (Kafka Streams:
    // the record's); only a headers-aware store's keeps its record.
    outputs: aggregationOutputs.map((o) =>
      o.topic === 'differential-t-changelog' ? { ...o, timestamps: false } : o,
    ),
    storeFormats: stores,
  },
  {
    name: 'a Processor API store keeps each record’s headers, in its changelog too (KIP-1271)',
    topology: 'headers-processor-store',
    inputs: inputs.filter((r) => r.topic === 'in'),
    outputs: [withHeaders('out', 'string'), changelog('kept')],
  },
];

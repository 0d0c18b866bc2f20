// The headers-in-state scenarios (issue 39, KIP-1271/1285): HeadersTopologies.java builds the same
// topologies with Kafka Streams. Input records carry trace headers. With dslStoreFormat 'HEADERS'
// (and without, for comparison) count, reduce and aggregate and a regrouped table run on
// headers-aware stores: the outputs with their headers, the changelogs byte for byte with their
// timestamps and headers, and which stores each side made headers-aware. A Processor API store
// keeps each record's headers: its changelog carries them, and a later record reads them back.
import type { Scenario, ScenarioInput } from '../../../../scripts/differential/kafka-streams.ts';
import type { StreamsBuilder } from '../../src/kstream/index.ts';
import type { ProcessorContext } from '../../src/processor/processor.ts';
import type { Record as StreamRecord } from '../../src/processor/record.ts';
import { Serdes } from '../../src/serdes/serdes.ts';
import { type KeyValueStore, Stores, type ValueTimestampHeaders } from '../../src/state/index.ts';

const S = Serdes.String();
const L = Serdes.Long();

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
];
const stores = ['counts', 'reduced', 'lengths', 't', 'by-value'];

export const headersScenarios: Scenario[] = [
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
    outputs: aggregationOutputs,
    storeFormats: stores,
  },
  {
    name: 'a Processor API store keeps each record’s headers, in its changelog too (KIP-1271)',
    topology: 'headers-processor-store',
    inputs: inputs.filter((r) => r.topic === 'in'),
    outputs: [withHeaders('out', 'string'), changelog('kept')],
  },
];

// The versioned-table scenarios (issue 39, KIP-889/914): VersionedTopologies.java builds the same
// topologies with Kafka Streams. A table on a versioned store (history retention 100 ms) meets
// out-of-order updates, tombstones and updates older than the retention; stream-table joins read
// it as of each stream record's timestamp (inner, left, through mapValues), with stream records
// older than the retention. The versioned store's changelog is compared byte for byte, with its
// records' timestamps (Kafka Streams' format: every put, its timestamp as the record's).
import type { Scenario, ScenarioInput } from '../../../../scripts/differential/kafka-streams.ts';
import { keyValue, Materialized, type StreamsBuilder } from '../../src/kstream/index.ts';
import { Serdes } from '../../src/serdes/serdes.ts';
import { Stores } from '../../src/state/index.ts';

const L = Serdes.Long();
const RETENTION = 100;
const GRACE = 50;

const versioned = <V>(name: string) =>
  Materialized.as<string, V>(Stores.persistentVersionedKeyValueStore(name, RETENTION));
const plus = (v: string, t: string | null) => `${v}|${t}`;

export const versionedTopologies: Record<string, (builder: StreamsBuilder) => void> = {
  'versioned-table': (b) => {
    const table = b.table<string, string>('right', {}, versioned('vt'));
    table.toStream().to('out');
    table
      .groupBy((k, v) => keyValue(v, k))
      .count()
      .toStream()
      .to('counts', { valueSerde: L });
  },
  'temporal-inner': (b) => {
    const table = b.table<string, string>('right', {}, versioned('vt'));
    b.stream<string, string>('left').join(table, plus).to('out');
  },
  'temporal-left': (b) => {
    const table = b.table<string, string>('right', {}, versioned('vt'));
    b.stream<string, string>('left').leftJoin(table, plus).to('out');
  },
  'temporal-left-mapped': (b) => {
    const table = b
      .table<string, string>('right', {}, versioned('vt'))
      .filter((_k, v) => v !== 'skip')
      .mapValues((v) => v.toUpperCase());
    b.stream<string, string>('left').leftJoin(table, plus).to('out');
  },
  // KIP-923: the stream side waits GRACE ms (by the buffer's stream time) and joins in time order.
  'temporal-grace-inner': (b) => {
    const table = b.table<string, string>('right', {}, versioned('vt'));
    b.stream<string, string>('left').join(table, plus, { name: 'gj', gracePeriodMs: GRACE }).to('out');
  },
  'temporal-grace-left': (b) => {
    const table = b.table<string, string>('right', {}, versioned('vt'));
    b.stream<string, string>('left').leftJoin(table, plus, { name: 'gj', gracePeriodMs: GRACE }).to('out');
  },
};

const rows = (topic: string, list: Array<[string, string | null, number]>): ScenarioInput[] =>
  list.map(([key, value, timestamp]) => ({ topic, key, value, timestamp }));

/** Table updates: in order, out of order, a tombstone, one older than the retention. */
const tableInput: ScenarioInput[] = rows('right', [
  ['k', 'a', 10],
  ['k', 'c', 30],
  ['k', 'b', 20],
  ['j', 'x', 25],
  ['k', null, 40],
  ['k', 'b2', 20],
  ['k', 'd', 200],
  ['k', 'old', 50],
  ['k', 'e', 100],
  ['j', null, 5],
  ['j', 'y', 150],
  ['k', 'f', 250],
]);

/** Stream records at times before, between and after the table's versions, some out of order. */
const joinInput: ScenarioInput[] = [
  ...rows('right', [
    ['k', 'a', 10],
    ['k', 'c', 30],
    ['k', 'b', 20],
  ]),
  ...rows('left', [
    ['k', 'l5', 5],
    ['k', 'l15', 15],
    ['k', 'l25', 25],
    ['k', 'l35', 35],
  ]),
  ...rows('right', [
    ['k', null, 40],
    ['k', 'skip', 45],
  ]),
  ...rows('left', [
    ['k', 'l42', 42],
    ['k', 'l47', 47],
    ['k', 'l12', 12],
  ]),
  ...rows('right', [
    ['k', 'z', 300],
    ['j', 'old', 60],
  ]),
  ...rows('left', [
    ['k', 'l150', 150],
    ['k', 'l250', 250],
    ['k', 'l199', 199],
    ['k', 'l15late', 15],
    ['j', 'j70', 70],
    ['j', 'j400', 400],
    ['k', 'l400', 400],
  ]),
];

/**
 * A grace period of 50: stream records out of order, table updates that arrive after the stream
 * record they concern but within the grace, one past it, and stream records already older than the
 * buffer's stream time minus the grace (joined at once). Equal timestamps leave by key bytes.
 */
const graceInput: ScenarioInput[] = [
  ...rows('right', [['k', 'a', 10]]),
  ...rows('left', [
    ['k', 'l30', 30],
    ['k', 'l20', 20],
    ['j', 'j25', 25],
  ]),
  // After l30 and l20 came in, but before the grace passed them: they see these.
  ...rows('right', [
    ['k', 'b', 15],
    ['j', 'x', 22],
    ['k', 'c', 28],
  ]),
  ...rows('left', [
    ['k', 'l60', 60],
    ['j', 'j60', 60],
    ['k', 'l75', 75],
  ]),
  ...rows('right', [['k', 'd', 26]]),
  ...rows('left', [
    ['k', 'l90', 90],
    // Older than stream time (90) minus the grace: joined at once, ahead of the buffered l60.
    ['k', 'l35', 35],
    ['j', 'j200', 200],
    ['k', 'l199', 199],
    ['k', 'l300', 300],
  ]),
];

const changelog = { topic: 'differential-vt-changelog', value: 'hex' as const };
// Kafka Streams logs the buffer without a timestamp (the producer's time); kstreams with the commit's.
const bufferChangelog = {
  topic: 'differential-gj-Buffer-changelog',
  value: 'hex' as const,
  timestamps: false,
};

export const versionedScenarios: Scenario[] = [
  {
    name: 'versioned table: out-of-order updates, tombstones, updates older than the history retention',
    topology: 'versioned-table',
    inputs: tableInput,
    outputs: [{ topic: 'out', value: 'string' }, { topic: 'counts', value: 'long' }, changelog],
  },
  {
    name: 'temporal stream-table inner join: the version valid at the stream record, older than the retention',
    topology: 'temporal-inner',
    inputs: joinInput,
    outputs: [{ topic: 'out', value: 'string' }, changelog],
  },
  {
    name: 'temporal stream-table left join',
    topology: 'temporal-left',
    inputs: joinInput,
    outputs: [{ topic: 'out', value: 'string' }],
  },
  {
    name: 'temporal left join through filter and mapValues value getters',
    topology: 'temporal-left-mapped',
    inputs: joinInput,
    outputs: [{ topic: 'out', value: 'string' }],
  },
  {
    name: 'temporal inner join with a grace period (KIP-923): buffered, joined in timestamp order',
    topology: 'temporal-grace-inner',
    inputs: graceInput,
    outputs: [{ topic: 'out', value: 'string' }, bufferChangelog],
  },
  {
    name: 'temporal left join with a grace period',
    topology: 'temporal-grace-left',
    inputs: [...graceInput, ...rows('left', [['nobody', 'n400', 400]])],
    outputs: [{ topic: 'out', value: 'string' }],
  },
];

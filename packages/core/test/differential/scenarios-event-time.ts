// The event-time scenarios (issue 38): EventTimeTopologies.java builds the same topologies with
// Kafka Streams. An extractor reads the event time from the value ("name:time"): windows, late
// records and output timestamps follow it. Each built-in meets negative timestamps (an input that
// fails the task ends the scenario with an "error()" record on both sides); as Java's driver
// refuses to pipe a negative timestamp, the built-ins get the record with the value's time as its
// timestamp.

import { pino } from 'pino';
import type { Scenario, ScenarioInput } from '../../../../scripts/differential/kafka-streams.ts';
import { type KStream, type StreamsBuilder, TimeWindows } from '../../src/kstream/index.ts';
import {
  FailOnInvalidTimestamp,
  LogAndSkipOnInvalidTimestamp,
  type TimestampExtractor,
  UsePartitionTimeOnInvalidTimestamp,
} from '../../src/processor/timestamp-extractor.ts';
import { Serdes } from '../../src/serdes/serdes.ts';
import type { Windowed } from '../../src/windowed.ts';

const S = Serdes.String();
const L = Serdes.Long();
const silent = pino({ level: 'silent' });

/** The event time after the value's ':' ("click:1500"); negative drops the record. */
const valueTime: TimestampExtractor = {
  extract: (record) => {
    const value = record.value as string;
    return Number(value.slice(value.indexOf(':') + 1));
  },
};

/** A built-in given the record with the value's time as its Kafka timestamp. */
const through = (builtIn: TimestampExtractor): TimestampExtractor => ({
  extract: (record, partitionTime) =>
    builtIn.extract({ ...record, timestamp: valueTime.extract(record, partitionTime) }, partitionTime),
});

const windowName = (key: Windowed<string>) => `${key.key}@${key.window.start}/${key.window.end}`;

const passAndCount = (stream: KStream<string, string>) => {
  stream.to('passed');
  stream.groupByKey().count().toStream().to('counts', { valueSerde: L });
};

const withExtractor = (b: StreamsBuilder, timestampExtractor: TimestampExtractor) =>
  b.stream<string, string>('in', { keySerde: S, valueSerde: S, timestampExtractor });

export const eventTimeTopologies: Record<string, (builder: StreamsBuilder) => void> = {
  'extract-value-time': (b) => {
    const events = withExtractor(b, valueTime);
    events.to('passed');
    events
      .groupByKey()
      .windowedBy(TimeWindows.ofSizeAndGrace(1000, 200))
      .count()
      .toStream()
      .selectKey(windowName)
      .to('out', { valueSerde: L });
  },
  'invalid-fail': (b) => passAndCount(withExtractor(b, through(new FailOnInvalidTimestamp()))),
  'invalid-log-and-skip': (b) =>
    passAndCount(withExtractor(b, through(new LogAndSkipOnInvalidTimestamp(silent)))),
  'invalid-partition-time': (b) =>
    passAndCount(withExtractor(b, through(new UsePartitionTimeOnInvalidTimestamp()))),
};

const into = (records: Array<[string, string, number]>): ScenarioInput[] =>
  records.map(([key, value, timestamp]) => ({ topic: 'in', key, value, timestamp }));

const passedAndCounts = [
  { topic: 'passed', value: 'string' },
  { topic: 'counts', value: 'long' },
] as const;

/** Valid times around negative ones (-1: no timestamp, and another); Kafka timestamps all 7. */
const withNegatives = into([
  ['a', 'x:100', 7],
  ['b', 'y:300', 7],
  ['a', 'z:-1', 7],
  ['b', 'w:200', 7],
  ['c', 'v:-42', 7],
  ['a', 'u:250', 7],
]);

export const eventTimeScenarios: Scenario[] = [
  {
    name: 'an extractor reading the event time from the value: windows, grace, late and dropped records',
    topology: 'extract-value-time',
    // The Kafka timestamps (all 5000, or going backwards) would put everything in one window.
    inputs: into([
      ['a', 'click:100', 5000],
      ['a', 'click:900', 5000],
      ['b', 'click:1100', 4000],
      ['a', 'click:1150', 3000],
      ['a', 'click:950', 2000],
      ['a', 'click:-5', 1000],
      ['b', 'click:2300', 900],
      ['a', 'click:990', 800],
      ['b', 'click:1999', 700],
    ]),
    outputs: [
      { topic: 'passed', value: 'string' },
      { topic: 'out', value: 'long' },
    ],
  },
  {
    name: 'negative timestamps with FailOnInvalidTimestamp: the task fails',
    topology: 'invalid-fail',
    inputs: withNegatives,
    outputs: [...passedAndCounts],
  },
  {
    name: 'negative timestamps with LogAndSkipOnInvalidTimestamp: dropped, the rest processed',
    topology: 'invalid-log-and-skip',
    inputs: withNegatives,
    outputs: [...passedAndCounts],
  },
  {
    name: 'negative timestamps with UsePartitionTimeOnInvalidTimestamp: the partition time (the largest so far)',
    topology: 'invalid-partition-time',
    inputs: withNegatives,
    outputs: [...passedAndCounts],
  },
  {
    name: 'UsePartitionTimeOnInvalidTimestamp before any valid record: partition time unknown, the task fails',
    topology: 'invalid-partition-time',
    inputs: into([
      ['a', 'x:-1', 7],
      ['a', 'y:10', 7],
    ]),
    outputs: [...passedAndCounts],
  },
];

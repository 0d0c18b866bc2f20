// TimestampExtractor (Kafka Streams' default.timestamp.extractor and Consumed.withTimestampExtractor):
// the extracted timestamp is the record's time for windows, stream time and the task's order of
// partitions; the built-ins handle a negative timestamp as Kafka Streams' do.
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveStreamsConfig } from '../../src/config/streams-config.ts';
import { ConfigError, TimestampExtractorError, TopologyError } from '../../src/errors.ts';
import { StreamsBuilder, TimeWindows } from '../../src/kstream/index.ts';
import { PartitionGroup } from '../../src/processor/internals/partition-group.ts';
import { INPUT_RECORDS } from '../../src/processor/internals/record-queue.ts';
import type { InputRecord, OutputRecord } from '../../src/processor/internals/records.ts';
import { stampingReader } from '../../src/processor/internals/source-timestamps.ts';
import { StreamTask } from '../../src/processor/internals/stream-task.ts';
import {
  type ConsumerRecord,
  FailOnInvalidTimestamp,
  LogAndSkipOnInvalidTimestamp,
  type TimestampExtractor,
  UsePartitionTimeOnInvalidTimestamp,
  WallclockTimestampExtractor,
} from '../../src/processor/timestamp-extractor.ts';
import { Topology } from '../../src/processor/topology.ts';
import { Serdes } from '../../src/serdes/serdes.ts';
import { WindowedSerdes } from '../../src/serdes/windowed-serdes.ts';
import { inMemoryBytesStores } from '../../src/state/bytes-stores.ts';
import { TopologyTestDriver, type TopologyTestDriverConfig } from '../../src/testing/index.ts';
import type { Windowed } from '../../src/windowed.ts';

const S = Serdes.String();
const L = Serdes.Long();
const silent = pino({ level: 'silent' });
type Event = { user: string; at: number };
const E = Serdes.Json<Event>();
/** The event time is the value's `at` field. */
const eventTime: TimestampExtractor = { extract: (record) => (record.value as Event).at };

let driver: TopologyTestDriver | undefined;
afterEach(async () => {
  await driver?.close();
  driver = undefined;
});

/** A pass-through of `in` to `out` (the output's timestamps are the records' times). */
function passThrough(consumed: { timestampExtractor?: TimestampExtractor } = {}) {
  const builder = new StreamsBuilder();
  builder.stream('in', { keySerde: S, valueSerde: S, ...consumed }).to('out');
  return builder.build();
}

function open(topology: Topology, config: TopologyTestDriverConfig = {}) {
  driver = new TopologyTestDriver(topology, {
    defaultKeySerde: S,
    defaultValueSerde: S,
    initialWallClockTimeMs: 0,
    logger: silent,
    ...config,
  });
  return {
    input: driver.createInputTopic('in', S, S),
    output: driver.createOutputTopic('out', S, S),
    driver,
  };
}

describe('an extractor reading the event time from the value', () => {
  it('windows, output timestamps and stream time follow the extracted time, not the Kafka timestamp', async () => {
    const builder = new StreamsBuilder();
    builder
      .stream('events', { keySerde: S, valueSerde: E, timestampExtractor: eventTime })
      .groupByKey()
      .windowedBy(TimeWindows.ofSizeWithNoGrace(1_000))
      .count()
      .toStream()
      .to('counts', { valueSerde: L });
    driver = new TopologyTestDriver(builder.build(), { logger: silent, statestoreCacheMaxBytes: 0 });
    const events = driver.createInputTopic('events', S, E);
    const counts = driver.createOutputTopic('counts', WindowedSerdes.timeWindowedSerdeFrom(S, 1_000), L);
    // Kafka timestamps all 50_000; event times 100, 900 (window 0), 1500 (window 1000), then 700:
    // late (stream time 1500 passed window 0's end with no grace), dropped.
    for (const at of [100, 900, 1_500, 700]) await events.pipeInput('u', { user: 'u', at }, 50_000);
    const out = counts.readRecordsToList().map((r) => `${name(r.key)}=${r.value}@${r.timestamp}`);
    expect(out).toEqual(['u@0=1@100', 'u@0=2@900', 'u@1000=1@1500']);
    expect(driver.droppedRecordsTotal).toBe(1);
  });

  it('stream-time punctuation fires on the extracted time', async () => {
    const fired: number[] = [];
    const topology = new Topology()
      .addSource('src', 'in', { keySerde: S, valueSerde: S, timestampExtractor: eventTimeOfString })
      .addProcessor(
        'p',
        () => ({
          init: (ctx: { schedule: (ms: number, type: 'stream-time', p: (t: number) => void) => void }) =>
            ctx.schedule(100, 'stream-time', (t) => fired.push(t)),
          process: () => {},
        }),
        'src',
      );
    const { input } = open(topology);
    // Kafka timestamps 0, 0, 0: only the values' times move stream time (0, 150, 420).
    for (const at of ['0', '150', '420']) await input.pipeInput('k', at, 0);
    expect(fired).toEqual([0, 150, 420]);
  });

  it('a bare function is an extractor, and the config default applies where Consumed sets none', async () => {
    const { input, output } = open(passThrough(), {
      defaultTimestampExtractor: (record: ConsumerRecord<unknown, unknown>) => Number(record.value),
    });
    await input.pipeInput('k', '42', 7);
    expect(output.readRecord().timestamp).toBe(42);
  });

  it("Consumed's extractor wins over the config default", async () => {
    const { input, output } = open(passThrough({ timestampExtractor: eventTimeOfString }), {
      defaultTimestampExtractor: new WallclockTimestampExtractor(),
    });
    await input.pipeInput('k', '42', 7);
    expect(output.readRecord().timestamp).toBe(42);
  });

  it('an extractor that throws fails with the record named', async () => {
    const { input } = open(
      passThrough({
        timestampExtractor: {
          extract: () => {
            throw new Error('no time');
          },
        },
      }),
    );
    const failing = input.pipeInput('k', 'v', 1);
    await expect(failing).rejects.toThrow(TimestampExtractorError);
    await expect(failing).rejects.toThrow(
      /Fatal user code error in TimestampExtractor callback for record in-0@0/,
    );
  });

  it('an extractor that returns a negative timestamp drops the record, counted', async () => {
    const { input, output, driver } = open(passThrough({ timestampExtractor: eventTimeOfString }));
    await input.pipeInput('a', '-3', 1);
    await input.pipeInput('b', '5', 1);
    expect(output.readRecordsToList().map((r) => [r.key, r.timestamp])).toEqual([['b', 5]]);
    expect(driver.droppedRecordsTotal).toBe(1);
  });
});

const eventTimeOfString: TimestampExtractor = { extract: (record) => Number(record.value) };
const name = (w: Windowed<string> | null) => (w === null ? null : `${w.key}@${w.window.start}`);

describe('the built-ins on a negative record timestamp', () => {
  it('FailOnInvalidTimestamp (the default) fails the task with the Java message', async () => {
    const { input } = open(passThrough());
    await expect(input.pipeInput('k', 'v', -1)).rejects.toThrow(TimestampExtractorError);
    await expect(input.pipeInput('k', 'v', -1)).rejects.toThrow(
      /Input record in-0@1 \(timestamp -1\) has invalid \(negative\) timestamp.*Use a different TimestampExtractor/,
    );
  });

  it('FailOnInvalidTimestamp given explicitly fails the same way (through the extractor)', async () => {
    const { input } = open(passThrough(), { defaultTimestampExtractor: new FailOnInvalidTimestamp() });
    await expect(input.pipeInput('k', 'v', -1)).rejects.toThrow(TimestampExtractorError);
  });

  it('a class is an extractor too (as Java names one in default.timestamp.extractor)', async () => {
    const { input, output } = open(passThrough(), {
      defaultTimestampExtractor: UsePartitionTimeOnInvalidTimestamp as unknown as TimestampExtractor,
    });
    await input.pipeInput('a', 'v', 40);
    await input.pipeInput('b', 'v', -1);
    expect(output.readRecordsToList().map((r) => r.timestamp)).toEqual([40, 40]);
  });

  it('LogAndSkipOnInvalidTimestamp drops the record, logs and counts it', async () => {
    const warnings: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => warnings.push(line) });
    const { input, output, driver } = open(passThrough(), {
      defaultTimestampExtractor: new LogAndSkipOnInvalidTimestamp(logger),
    });
    await input.pipeInput('a', 'v', -1);
    await input.pipeInput('b', 'v', 10);
    expect(output.readRecordsToList().map((r) => [r.key, r.timestamp])).toEqual([['b', 10]]);
    expect(driver.droppedRecordsTotal).toBe(1);
    expect(warnings.join('')).toMatch(/in-0@0 \(timestamp -1\) will be dropped because it has an invalid/);
  });

  it('UsePartitionTimeOnInvalidTimestamp: the partition time, or an error while it is unknown', async () => {
    const { input, output } = open(passThrough(), {
      defaultTimestampExtractor: new UsePartitionTimeOnInvalidTimestamp(),
    });
    await expect(input.pipeInput('a', 'v', -1)).rejects.toThrow(
      /Could not infer new timestamp for input record in-0@0 .*because partition time is unknown/,
    );
    await input.pipeInput('b', 'v', 30);
    await input.pipeInput('c', 'v', 20);
    await input.pipeInput('d', 'v', -7);
    // The partition time is the largest timestamp taken so far (30), not the last one.
    expect(output.readRecordsToList().map((r) => [r.key, r.timestamp])).toEqual([
      ['b', 30],
      ['c', 20],
      ['d', 30],
    ]);
  });

  it('WallclockTimestampExtractor stamps the wall-clock time of reading', async () => {
    const { input, output } = open(passThrough({ timestampExtractor: new WallclockTimestampExtractor() }));
    const before = Date.now();
    await input.pipeInput('k', 'v', -1);
    const at = output.readRecord().timestamp;
    expect(at).toBeGreaterThanOrEqual(before);
    expect(at).toBeLessThanOrEqual(Date.now());
  });
});

describe('the task and its partition group read the extracted timestamp', () => {
  function task(extractor: TimestampExtractor | undefined) {
    const sent: OutputRecord[] = [];
    const topology = new Topology()
      .addSource('left', 'left', {
        keySerde: S,
        valueSerde: S,
        ...(extractor === undefined ? {} : { timestampExtractor: extractor }),
      })
      .addSource('right', 'right', { keySerde: S, valueSerde: S })
      .addSink('out', 'out', { keySerde: S, valueSerde: S }, 'left', 'right');
    const t = new StreamTask({
      id: { subtopology: 0, partition: 0 },
      applicationId: 'app',
      topology,
      collector: { send: (r) => sent.push(r) },
      storeFactory: (_s, _t, b) => b.bytesStore(inMemoryBytesStores),
      logger: silent,
    });
    return { t, sent };
  }
  const rec = (topic: string, offset: number, value: string, timestamp: number): InputRecord => ({
    topic,
    partition: 0,
    offset,
    key: Buffer.from(value),
    value: Buffer.from(value),
    timestamp,
  });

  it('orders partitions by the extracted time, and stream time follows it', async () => {
    const { t, sent } = task(eventTimeOfString);
    await t.initializeStores();
    await t.initializeTopology();
    const group = new PartitionGroup(t.inputPartitions, {
      maxTaskIdleMs: 0,
      maxFetchWaitMs: 0,
      readerFor: (topic, partition) => {
        const timestamps = t.timestamps(topic);
        return timestamps && stampingReader(INPUT_RECORDS, topic, partition, timestamps);
      },
    });
    // Left's Kafka timestamps (1, 2) sort before right's (10, 20); its event times (15, 25) do not.
    group.add(group.queue('left', 0)!, rec('left', 0, '15', 1));
    group.add(group.queue('left', 0)!, rec('left', 1, '25', 2));
    group.add(group.queue('right', 0)!, rec('right', 0, '10', 10));
    group.add(group.queue('right', 0)!, rec('right', 1, '20', 20));
    while (group.numBuffered > 0) await t.process(group.nextRecord()!.record);
    expect(sent.map((r) => `${r.value}@${r.timestamp}`)).toEqual(['10@10', '15@15', '20@20', '25@25']);
    expect(t.streamTime()).toBe(25);
  });

  it('the default reads the Kafka timestamp without stamping (no extractor call, no reader of its own)', () => {
    const { t } = task(undefined);
    expect(t.timestamps('left')).toBeUndefined();
    expect(task(new FailOnInvalidTimestamp()).t.timestamps('left')).toBeUndefined();
    expect(task(eventTimeOfString).t.timestamps('left')).toBeDefined();
  });

  it('a rollback takes the partition time back to the last commit', async () => {
    const { t, sent } = task(new UsePartitionTimeOnInvalidTimestamp());
    await t.initializeStores();
    await t.initializeTopology();
    await t.process(rec('left', 0, 'a', 10));
    await t.postCommit([]);
    await t.process(rec('left', 1, 'b', 50));
    t.rollback();
    await t.process(rec('left', 1, 'c', -1));
    expect(sent.map((r) => `${r.value}@${r.timestamp}`)).toEqual(['a@10', 'b@50', 'c@10']);
  });
});

describe('bad extractors are refused up front', () => {
  it('in the config', () => {
    expect(() =>
      resolveStreamsConfig({
        applicationId: 'a',
        brokers: 'b:1',
        defaultTimestampExtractor: 42 as unknown as TimestampExtractor,
      }),
    ).toThrow(ConfigError);
    expect(() =>
      resolveStreamsConfig({
        applicationId: 'a',
        brokers: 'b:1',
        defaultTimestampExtractor: {} as TimestampExtractor,
      }),
    ).toThrow(/"defaultTimestampExtractor" must be a TimestampExtractor/);
  });

  it('in Consumed', () => {
    const builder = new StreamsBuilder();
    expect(() =>
      builder.stream('in', { timestampExtractor: 'event' as unknown as TimestampExtractor }),
    ).toThrow(TopologyError);
  });
});

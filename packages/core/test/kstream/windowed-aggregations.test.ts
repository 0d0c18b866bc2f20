// Windowed aggregations through the test driver: window assignment, grace and late records, the
// window store, the windowed key bytes (Java's layout) and the changelog format. The differential
// harness compares the same operators record for record with Kafka Streams itself.
import { afterEach, describe, expect, it } from 'vitest';
import { TopologyError } from '../../src/errors.ts';
import { StreamsBuilder, TimeWindows } from '../../src/kstream/index.ts';
import { Serdes } from '../../src/serdes/serdes.ts';
import { WindowedSerdes } from '../../src/serdes/windowed-serdes.ts';
import { TopologyTestDriver } from '../../src/testing/index.ts';
import type { Windowed } from '../../src/windowed.ts';

const S = Serdes.String();
const L = Serdes.Long();
const MINUTE = 60_000;
let driver: TopologyTestDriver | undefined;

afterEach(async () => {
  await driver?.close();
  driver = undefined;
});

function countTopology(windows: TimeWindows) {
  const builder = new StreamsBuilder();
  builder
    .stream('clicks', { keySerde: S, valueSerde: S })
    .groupByKey()
    .windowedBy(windows)
    .count({ storeName: 'counts' })
    .toStream()
    .to('counts-out', { valueSerde: L });
  return builder.build();
}

const name = (w: Windowed<string> | null) =>
  w === null ? null : `${w.key}@${w.window.start}/${w.window.end}`;

describe('TimeWindows', () => {
  it('hopping windows of 5 minutes advancing by 1 minute: a record is in the five that contain it', () => {
    // Kafka Streams' docs: windows [0;5), [1;6), ... minutes; a record at 7.5 min is in [3;8) to [7;12).
    const windows = TimeWindows.ofSizeWithNoGrace(5 * MINUTE).advanceBy(MINUTE);
    expect(windows.windowsFor(7.5 * MINUTE).map((w) => [w.start / MINUTE, w.end / MINUTE])).toEqual([
      [3, 8],
      [4, 9],
      [5, 10],
      [6, 11],
      [7, 12],
    ]);
    // Near the epoch only windows that start at 0 or later exist.
    expect(windows.windowsFor(MINUTE).map((w) => w.start / MINUTE)).toEqual([0, 1]);
  });

  it('tumbling windows are aligned to the epoch and do not overlap', () => {
    const windows = TimeWindows.ofSizeAndGrace(5 * MINUTE, MINUTE);
    expect(windows.windowsFor(12 * MINUTE)).toEqual([{ start: 10 * MINUTE, end: 15 * MINUTE }]);
    expect(windows.windowsFor(10 * MINUTE - 1)).toEqual([{ start: 5 * MINUTE, end: 10 * MINUTE }]);
    expect(windows.retentionMs).toBe(6 * MINUTE);
  });

  it('refuses sizes, advances and graces that make no sense, saying what to change', () => {
    expect(() => TimeWindows.ofSizeWithNoGrace(0)).toThrow(TopologyError);
    expect(() => TimeWindows.ofSizeAndGrace(10, -1)).toThrow(/grace must be a whole number of ms >= 0/);
    expect(() => TimeWindows.ofSizeWithNoGrace(10).advanceBy(11)).toThrow(
      /must not be larger than the window size/,
    );
  });
});

describe('windowedBy().count()', () => {
  it('counts per window and drops records for windows closed by stream time past grace', async () => {
    driver = new TopologyTestDriver(countTopology(TimeWindows.ofSizeAndGrace(10, 5)), { applicationId: 'w' });
    const input = driver.createInputTopic('clicks', S, S);
    for (const [key, ts] of [
      ['a', 1],
      ['a', 8],
      ['a', 12],
      ['a', 9], // stream time 12: [0,10) closes at 10 + 5 = 15, so this one counts
      ['a', 16],
      ['a', 7], // stream time 16 >= 15: late, dropped
    ] as const) {
      await input.pipeInput(key, 'x', ts);
    }
    const out = driver
      .createOutputTopic('counts-out', WindowedSerdes.timeWindowedSerdeFrom(S, 10), L)
      .readRecordsToList()
      .map((r) => [name(r.key), r.value, r.timestamp]);
    expect(out).toEqual([
      ['a@0/10', 1, 1],
      ['a@0/10', 2, 8],
      ['a@10/20', 1, 12],
      ['a@0/10', 3, 9],
      ['a@10/20', 2, 16],
    ]);
    const store = driver.getWindowStore<string, number>('counts');
    expect(store.fetch('a', 0)).toBe(3);
    expect(store.fetch('a', 10)).toBe(2);
    const fetched = [];
    for await (const e of store.fetch('a', 0, 10)) fetched.push([e.timestamp, e.value]);
    expect(fetched).toEqual([
      [0, 3],
      [10, 2],
    ]);
    const backward = [];
    for await (const e of store.backwardFetch('a', 0, 10)) backward.push(e.timestamp);
    expect(backward).toEqual([10, 0]);
  });

  it('writes Java’s windowed key bytes and a changelog in Kafka Streams’ window key layout', async () => {
    driver = new TopologyTestDriver(countTopology(TimeWindows.ofSizeWithNoGrace(1000)), {
      applicationId: 'w',
    });
    await driver.createInputTopic('clicks', S, S).pipeInput('k', 'x', 1_500);
    const [out] = driver.createOutputTopic('counts-out', Serdes.Bytes(), Serdes.Bytes()).readRecordsToList();
    // TimeWindowedSerializer: the key's bytes, then the window start as an int64.
    expect(out!.key!.toString('hex')).toBe(`6b${(1000).toString(16).padStart(16, '0')}`);
    const [log] = driver
      .createOutputTopic('w-counts-changelog', Serdes.Bytes(), Serdes.Bytes())
      .readRecordsToList();
    // WindowKeySchema: key, window start (int64), seqnum 0 (int32); the plain count; its timestamp.
    expect(log!.key!.toString('hex')).toBe(`6b${(1000).toString(16).padStart(16, '0')}00000000`);
    expect(log!.value!.toString('hex')).toBe('0000000000000001');
    expect(log!.timestamp).toBe(1_500);
  });

  it('a windowed key serde reads back what it writes, with the end from the window size', () => {
    const serde = WindowedSerdes.timeWindowedSerdeFrom(S, 300);
    const key = { key: 'user-1', window: { start: 1_700_000_000_100, end: 1_700_000_000_400 } };
    expect(serde.deserialize(serde.serialize(key))).toEqual(key);
    const session = WindowedSerdes.sessionWindowedSerdeFrom(S);
    const s = { key: 'u', window: { start: 5, end: 90 } };
    expect(session.deserialize(session.serialize(s))).toEqual(s);
    expect(session.serialize(s).toString('hex')).toBe(
      `75${(90).toString(16).padStart(16, '0')}${(5).toString(16).padStart(16, '0')}`,
    );
  });

  it('a windowed table gets its windowed key serde from the default key serde', async () => {
    const builder = new StreamsBuilder();
    builder
      .stream<string, string>('in')
      .groupByKey()
      .windowedBy(TimeWindows.ofSizeWithNoGrace(10))
      .count()
      .toStream()
      .to('out', { valueSerde: L });
    driver = new TopologyTestDriver(builder.build(), {
      defaultKeySerde: S as never,
      defaultValueSerde: S as never,
    });
    await driver.createInputTopic('in', S, S).pipeInput('a', 'x', 25);
    const [r] = driver
      .createOutputTopic('out', WindowedSerdes.timeWindowedSerdeFrom(S, 10), L)
      .readRecordsToList();
    expect([name(r!.key), r!.value]).toEqual(['a@20/30', 1]);
  });
});

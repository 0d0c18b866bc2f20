// Sliding and session windows through the test driver: the worked examples of Kafka Streams' docs
// (SlidingWindows' and SessionWindows' javadoc, the DSL guide's session diagram), grace and late
// records, the session store and its changelog in Java's session key layout. The differential
// harness compares the same operators record for record with Kafka Streams itself.
import { afterEach, describe, expect, it } from 'vitest';
import { TopologyError } from '../../src/errors.ts';
import { SessionWindows, SlidingWindows, StreamsBuilder } from '../../src/kstream/index.ts';
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

const name = (w: Windowed<string> | null) =>
  w === null ? null : `${w.key}@${w.window.start}/${w.window.end}`;

async function pipe(
  input: { pipeInput(k: string, v: string, t: number): Promise<void> },
  records: Array<[string, string, number]>,
) {
  for (const [k, v, t] of records) await input.pipeInput(k, v, t);
}

describe('SlidingWindows', () => {
  function slidingSum(windows: SlidingWindows) {
    const builder = new StreamsBuilder();
    builder
      .stream('in', { keySerde: S, valueSerde: S })
      .groupByKey()
      .windowedBy(windows)
      .aggregate(
        () => '',
        (_k, v, agg) => (agg === '' ? v : `${agg},${v}`),
        { storeName: 'sliding', valueSerde: S },
      )
      .toStream()
      .to('out', { valueSerde: S });
    return builder.build();
  }

  const read = (d: TopologyTestDriver, size: number) =>
    d
      .createOutputTopic('out', WindowedSerdes.timeWindowedSerdeFrom(S, size), S)
      .readRecordsToList()
      .map((r) => [name(r.key), r.value, r.timestamp]);

  it('the javadoc example: time difference 5000 ms, records at 8000, 9200, 12400 make five windows', async () => {
    driver = new TopologyTestDriver(slidingSum(SlidingWindows.ofTimeDifferenceWithNoGrace(5000)), {
      applicationId: 's',
    });
    await pipe(driver.createInputTopic('in', S, S), [
      ['A', '1', 8000],
      ['A', '2', 9200],
      ['A', '3', 12400],
    ]);
    expect(read(driver, 5000)).toEqual([
      ['A@3000/8000', '1', 8000], // created when the first record enters the window
      ['A@8001/13001', '2', 9200], // the first record's right window, when the second arrives
      ['A@4200/9200', '1,2', 9200],
      // Newest window first, as Kafka Streams scans them: [8001;13001] now contains [2,3], then
      // the second record's right window, then the third record's left window.
      ['A@8001/13001', '2,3', 12400],
      ['A@9201/14201', '3', 12400],
      ['A@7400/12400', '1,2,3', 12400],
    ]);
    // The five windows of the javadoc, and no other (no empty window).
    const windows = [];
    for await (const e of driver.getWindowStore<string, string>('sliding').fetch('A', 0, 20_000))
      windows.push([e.timestamp, e.value]);
    expect(windows).toEqual([
      [3000, '1'],
      [4200, '1,2'],
      [7400, '1,2,3'],
      [8001, '2,3'],
      [9201, '3'],
    ]);
  });

  it('an out-of-order record updates the windows that contain it and creates its own', async () => {
    driver = new TopologyTestDriver(slidingSum(SlidingWindows.ofTimeDifferenceAndGrace(10, 20)), {
      applicationId: 's',
    });
    await pipe(driver.createInputTopic('in', S, S), [
      ['k', 'a', 20],
      ['k', 'b', 30],
      ['k', 'c', 25], // between the two: in [20;30] and in a's right window [21;31]
    ]);
    expect(read(driver, 10)).toEqual([
      ['k@10/20', 'a', 20],
      ['k@21/31', 'b', 30],
      ['k@20/30', 'a,b', 30],
      ['k@21/31', 'b,c', 30], // the existing right window of a, updated (newest first, as Kafka Streams)
      ['k@20/30', 'a,b,c', 30],
      ['k@15/25', 'a,c', 25], // c's left window: a and c
      ['k@26/36', 'b', 30], // c's right window holds b only
    ]);
  });

  it('records before the time difference share the window [0, d]', async () => {
    driver = new TopologyTestDriver(slidingSum(SlidingWindows.ofTimeDifferenceWithNoGrace(10)), {
      applicationId: 's',
    });
    await pipe(driver.createInputTopic('in', S, S), [
      ['k', 'a', 3],
      ['k', 'b', 7],
    ]);
    expect(read(driver, 10)).toEqual([
      ['k@0/10', 'a', 3],
      ['k@4/14', 'b', 7],
      ['k@0/10', 'a,b', 7],
    ]);
  });

  it('drops a record whose windows all ended before stream time minus grace, and counts it', async () => {
    driver = new TopologyTestDriver(slidingSum(SlidingWindows.ofTimeDifferenceAndGrace(10, 5)), {
      applicationId: 's',
    });
    await pipe(driver.createInputTopic('in', S, S), [
      ['k', 'a', 100],
      ['k', 'late', 84], // 84 + 10 < 100 - 5: late
      ['k', 'ok', 92], // 92 + 10 >= 95: on time, but its left window [82;92] has closed
    ]);
    expect(read(driver, 10)).toEqual([
      ['k@90/100', 'a', 100],
      ['k@90/100', 'a,ok', 100],
      ['k@93/103', 'a', 100], // ok's right window holds a
    ]);
    expect(driver.droppedRecordsTotal).toBe(2);
  });

  it('refuses a zero time difference or a retention below 2 × difference + grace', () => {
    expect(() => SlidingWindows.ofTimeDifferenceWithNoGrace(0)).toThrow(/time difference must be/);
    expect(() => SlidingWindows.ofTimeDifferenceAndGrace(10, -1)).toThrow(TopologyError);
    expect(SlidingWindows.ofTimeDifferenceAndGrace(10, 5).retentionMs).toBe(25);
    const grouped = new StreamsBuilder().stream('in').groupByKey();
    expect(() =>
      grouped.windowedBy(SlidingWindows.ofTimeDifferenceAndGrace(10, 5)).count({ retentionMs: 24 }),
    ).toThrow(/at least twice the time difference plus grace \(25 ms\)/);
  });
});

describe('SessionWindows', () => {
  function sessionCount(windows: SessionWindows, retentionMs?: number) {
    const builder = new StreamsBuilder();
    builder
      .stream('in', { keySerde: S, valueSerde: S })
      .groupByKey()
      .windowedBy(windows)
      .count({ storeName: 'sessions', ...(retentionMs === undefined ? {} : { retentionMs }) })
      .toStream()
      .to('out', { valueSerde: L });
    return builder.build();
  }

  const read = (d: TopologyTestDriver) =>
    d
      .createOutputTopic('out', WindowedSerdes.sessionWindowedSerdeFrom(S), L)
      .readRecordsToList()
      .map((r) => [name(r.key), r.value, r.timestamp]);

  async function sessions(d: TopologyTestDriver, key: string) {
    const out = [];
    for await (const s of d.getSessionStore<string, number>('sessions').fetch(key))
      out.push([s.key.start, s.key.end, s.value]);
    return out;
  }

  it('the DSL guide: 5-minute gap, green at 0, 6, 4 and blue at 2, 5, 11 minutes', async () => {
    // The store keeps sessions for gap + grace after stream time, as Kafka Streams' does: with no
    // grace, green's [0;0] is gone (hidden) by the time the record at 4 arrives (stream time 6), in
    // Kafka Streams too (the differential scenario "session DSL guide example, default retention"). The
    // guide's picture needs a longer retention, which is what Materialized's retention is for.
    const windows = SessionWindows.ofInactivityGapWithNoGrace(5 * MINUTE);
    driver = new TopologyTestDriver(sessionCount(windows, 10 * MINUTE), { applicationId: 'sess' });
    const input = driver.createInputTopic('in', S, S);
    await pipe(input, [
      ['green', 'x', 0],
      ['green', 'x', 6 * MINUTE],
      ['blue', 'x', 2 * MINUTE],
    ]);
    // Three sessions after three records: green [0;0] and [6;6], blue [2;2].
    expect(await sessions(driver, 'green')).toEqual([
      [0, 0, 1],
      [6 * MINUTE, 6 * MINUTE, 1],
    ]);
    expect(await sessions(driver, 'blue')).toEqual([[2 * MINUTE, 2 * MINUTE, 1]]);
    await pipe(input, [
      ['green', 'x', 4 * MINUTE], // out of order: merges green's two sessions
      ['blue', 'x', 5 * MINUTE], // out of order: extends blue's session
      ['blue', 'x', 11 * MINUTE], // a new session
    ]);
    expect(await sessions(driver, 'green')).toEqual([[0, 6 * MINUTE, 3]]);
    expect(await sessions(driver, 'blue')).toEqual([
      [2 * MINUTE, 5 * MINUTE, 2],
      [11 * MINUTE, 11 * MINUTE, 1],
    ]);
    const m = (n: number) => n * MINUTE;
    expect(read(driver)).toEqual([
      [`green@0/0`, 1, 0],
      [`green@${m(6)}/${m(6)}`, 1, m(6)],
      [`blue@${m(2)}/${m(2)}`, 1, m(2)],
      // The merge: a tombstone for each old session (at its end), then the merged session.
      [`green@0/0`, null, 0],
      [`green@${m(6)}/${m(6)}`, null, m(6)],
      [`green@0/${m(6)}`, 3, m(6)],
      [`blue@${m(2)}/${m(2)}`, null, m(2)],
      [`blue@${m(2)}/${m(5)}`, 2, m(5)],
      [`blue@${m(11)}/${m(11)}`, 1, m(11)],
    ]);
  });

  it('the javadoc example: gap 5, records at 10, 12, 20 make two sessions; 16 merges them', async () => {
    const builder = new StreamsBuilder();
    builder
      .stream('in', { keySerde: S, valueSerde: S })
      .groupByKey()
      .windowedBy(SessionWindows.ofInactivityGapWithNoGrace(5))
      .aggregate(
        () => '',
        (_k, v, agg) => agg + v,
        (_k, a, b) => a + b,
        // Retention past gap + grace (5), so that [10;12] is still there at stream time 20.
        { storeName: 'sessions', valueSerde: S, retentionMs: 100 },
      )
      .toStream()
      .to('out', { valueSerde: S });
    driver = new TopologyTestDriver(builder.build(), { applicationId: 'sess' });
    const input = driver.createInputTopic('in', S, S);
    await pipe(input, [
      ['A', '1', 10],
      ['A', '2', 12],
      ['A', '3', 20],
    ]);
    const store = driver.getSessionStore<string, string>('sessions');
    const all = async () => {
      const out = [];
      for await (const s of store.fetch('A')) out.push([s.key.start, s.key.end, s.value]);
      return out;
    };
    expect(await all()).toEqual([
      [10, 12, '12'],
      [20, 20, '3'],
    ]);
    await input.pipeInput('A', '4', 16);
    // One session [10;20]; the merger joins the older session's aggregate first (by end).
    expect(await all()).toEqual([[10, 20, '1234']]);
    expect(store.fetchSession('A', 10, 20)).toBe('1234');
    const found = [];
    for await (const s of store.findSessions('A', 21, 30)) found.push(s.key);
    expect(found).toEqual([]);
    const out = driver
      .createOutputTopic('out', WindowedSerdes.sessionWindowedSerdeFrom(S), S)
      .readRecordsToList()
      .map((r) => [name(r.key), r.value, r.timestamp]);
    expect(out).toEqual([
      ['A@10/10', '1', 10],
      ['A@10/10', null, 10], // 12 extends [10;10]: a merge too
      ['A@10/12', '12', 12],
      ['A@20/20', '3', 20],
      ['A@10/12', null, 12],
      ['A@20/20', null, 20],
      ['A@10/20', '1234', 20],
    ]);
  });

  it('drops a record whose session would end before stream time minus gap minus grace', async () => {
    driver = new TopologyTestDriver(sessionCount(SessionWindows.ofInactivityGapAndGrace(10, 5)), {
      applicationId: 'sess',
    });
    await pipe(driver.createInputTopic('in', S, S), [
      ['k', 'x', 100],
      ['k', 'x', 84], // 84 < 100 - 10 - 5 = 85: late
      ['k', 'x', 85], // on time (85 is not before 85): a session of its own
      // Within the gap of both, but [85;85] has passed the store's retention (15 ms before stream
      // time), so only [100;100] is found and merged, as in Kafka Streams.
      ['k', 'x', 92],
    ]);
    expect(read(driver)).toEqual([
      ['k@100/100', 1, 100],
      ['k@85/85', 1, 85],
      ['k@100/100', null, 100],
      ['k@92/100', 2, 100],
    ]);
    expect(driver.droppedRecordsTotal).toBe(1);
  });

  it('keeps the changelog in Java’s session key layout, with the count as the value', async () => {
    driver = new TopologyTestDriver(sessionCount(SessionWindows.ofInactivityGapWithNoGrace(10)), {
      applicationId: 'sess',
    });
    const input = driver.createInputTopic('in', S, S);
    await input.pipeInput('k', 'x', 1_000);
    await input.pipeInput('k', 'x', 1_005);
    const log = driver
      .createOutputTopic('sess-sessions-changelog', Serdes.Bytes(), Serdes.Bytes())
      .readRecordsToList()
      .map((r) => [r.key!.toString('hex'), r.value === null ? null : r.value.toString('hex')]);
    const long = (n: number) => n.toString(16).padStart(16, '0');
    // SessionKeySchema: key, end (int64), start (int64).
    expect(log).toEqual([
      [`6b${long(1000)}${long(1000)}`, long(1)],
      [`6b${long(1000)}${long(1000)}`, null],
      [`6b${long(1005)}${long(1000)}`, long(2)],
    ]);
  });

  it('refuses a zero gap, a missing merger and a retention below gap + grace', () => {
    expect(() => SessionWindows.ofInactivityGapWithNoGrace(0)).toThrow(/inactivity gap must be/);
    const grouped = new StreamsBuilder().stream('in').groupByKey();
    const windowed = grouped.windowedBy(SessionWindows.ofInactivityGapAndGrace(10, 5));
    expect(() => windowed.count({ retentionMs: 14 })).toThrow(/inactivity gap plus grace \(15 ms\)/);
    expect(() =>
      windowed.aggregate(
        () => 0,
        (_k, _v, a) => a,
        undefined as never,
      ),
    ).toThrow(/needs a merger/);
  });
});

describe('generated names', () => {
  it('windowed reduces name their processor and store KSTREAM-REDUCE-, as Kafka Streams does', () => {
    const builder = new StreamsBuilder();
    const grouped = builder.stream<string, string>('in').groupByKey();
    grouped.windowedBy(SlidingWindows.ofTimeDifferenceWithNoGrace(10)).reduce((a, b) => a + b);
    grouped.windowedBy(SessionWindows.ofInactivityGapWithNoGrace(10)).reduce((a, b) => a + b);
    grouped.windowedBy(SessionWindows.ofInactivityGapWithNoGrace(10)).count();
    const stores = builder
      .build()
      .subtopologies('app')
      .flatMap((s) => s.stores.map((st) => st.changelogTopic));
    expect(stores).toEqual([
      'app-KSTREAM-REDUCE-STATE-STORE-0000000001-changelog',
      'app-KSTREAM-REDUCE-STATE-STORE-0000000003-changelog',
      'app-KSTREAM-AGGREGATE-STATE-STORE-0000000005-changelog',
    ]);
  });
});

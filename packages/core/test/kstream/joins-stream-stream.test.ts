// Stream-stream joins through the test driver: the KStream-KStream join table of Kafka Streams' DSL
// guide (docs/streams/developer-guide/dsl-api.html, "Semantics of stream-stream joins": one key,
// a join window of 15 with a grace of 5, left/outer results only once the window has closed),
// every input record and every result with its timestamp; then the options around them (names and
// stores as Kafka Streams', asymmetric windows, null keys, repartitioning, the shared store's
// layout). test/differential/scenarios-joins-stream.ts compares the same with Kafka Streams.
import { afterEach, describe, expect, it } from 'vitest';
import { JoinWindows, type KStream, StreamsBuilder } from '../../src/kstream/index.ts';
import { Serdes } from '../../src/serdes/serdes.ts';
import { TopologyTestDriver } from '../../src/testing/index.ts';
import { DSL_GUIDE_STREAM_JOIN_INPUT as DOCS_INPUT, type JoinSide } from '../fixtures/dsl-guide-joins.ts';

const S = Serdes.String();
let driver: TopologyTestDriver | undefined;

afterEach(async () => {
  await driver?.close();
  driver = undefined;
});

type Kind = 'join' | 'leftJoin' | 'outerJoin';
const pair = (l: string | null, r: string | null) => `[${l}, ${r}]`;

function joinTopology(kind: Kind, windows: JoinWindows, build?: (l: KStream<string, string>) => void) {
  const b = new StreamsBuilder();
  const left = b.stream<string, string>('left');
  const right = b.stream<string, string>('right');
  const joined =
    kind === 'join'
      ? left.join(right, pair, windows)
      : kind === 'leftJoin'
        ? left.leftJoin(right, pair, windows)
        : left.outerJoin(right, pair, windows);
  joined.to('out');
  build?.(left);
  return b;
}

function start(builder: StreamsBuilder): TopologyTestDriver {
  driver = new TopologyTestDriver(builder.build(), { defaultKeySerde: S, defaultValueSerde: S });
  return driver;
}

/** Pipes each [timestamp, side, value] of key 'k' and returns, per input, what came out ("value@ts"). */
async function run(
  d: TopologyTestDriver,
  input: ReadonlyArray<readonly [number, JoinSide, string | null, string?]>,
): Promise<string[][]> {
  const topics = { left: d.createInputTopic('left', S, S), right: d.createInputTopic('right', S, S) };
  const out = d.createOutputTopic('out', S, S);
  const results: string[][] = [];
  for (const [timestamp, side, value, key = 'k'] of input) {
    await topics[side].pipeInput(key, value, timestamp);
    results.push(
      out.readRecordsToList().map((r) => `${r.key === 'k' ? '' : `${r.key}:`}${r.value}@${r.timestamp}`),
    );
  }
  return results;
}

/** Rows 1..15 of the guide's table: the same for all three joins (every record finds a partner). */
const INNER_ROWS: string[][] = [
  [],
  [],
  [], // A waits: a left or outer join emits [A, null] only if no partner came before its window closed
  ['[A, a]@4'],
  ['[B, a]@5'],
  ['[A, b]@6', '[B, b]@6'],
  [],
  [],
  ['[C, a]@9', '[C, b]@9'],
  ['[A, c]@10', '[B, c]@10', '[C, c]@10'],
  [],
  [],
  [],
  ['[A, d]@14', '[B, d]@14', '[C, d]@14'],
  ['[D, a]@15', '[D, b]@15', '[D, c]@15', '[D, d]@15'],
];

const windows = JoinWindows.ofTimeDifferenceAndGrace(15, 5);

describe("KStream-KStream joins: the DSL guide's table (window 15, grace 5)", () => {
  // The guide's last rows are one record early: a window closes only once stream time passes its
  // end plus the grace (40 + 15 + 5 = 60 is still open at stream time 60), so [E, null] comes with
  // f at 80 and [F, null] with G at 100, and [null, f] (open until stream time passes 100) does
  // not come at all. Kafka Streams 4.4's own TopologyTestDriver gives exactly this (the
  // differential scenarios run the same input through it).
  it('inner join: a result per pair within the window, with the later timestamp; nothing for E, F, f, G', async () => {
    const rows = await run(start(joinTopology('join', windows)), DOCS_INPUT);
    expect(rows).toEqual([...INNER_ROWS, [], [], [], []]);
  });

  it('left join: [E, null] and [F, null] with their own timestamps, once their windows closed', async () => {
    const rows = await run(start(joinTopology('leftJoin', windows)), DOCS_INPUT);
    expect(rows).toEqual([...INNER_ROWS, [], [], ['[E, null]@40'], ['[F, null]@60']]);
  });

  it('outer join: as the left join; [null, f] still waits at stream time 100', async () => {
    const rows = await run(start(joinTopology('outerJoin', windows)), DOCS_INPUT);
    expect(rows).toEqual([...INNER_ROWS, [], [], ['[E, null]@40'], ['[F, null]@60']]);
  });

  it("one record past each window's end + grace gives the guide's rows (and [null, f] for the outer join)", async () => {
    const later = [
      ...DOCS_INPUT.slice(0, 15),
      [40, 'left', 'E'],
      [61, 'left', 'F'],
      [82, 'right', 'f'],
      [103, 'left', 'G'],
    ] as const;
    const left = await run(start(joinTopology('leftJoin', windows)), later);
    expect(left.slice(15)).toEqual([[], ['[E, null]@40'], ['[F, null]@61'], []]);
    await driver?.close();
    const outer = await run(start(joinTopology('outerJoin', windows)), later);
    expect(outer.slice(15)).toEqual([[], ['[E, null]@40'], ['[F, null]@61'], ['[null, f]@82']]);
  });
});

describe('KStream-KStream joins: names, stores and options', () => {
  it('names processors and stores as Kafka Streams 4.4 (lines of its describe() for a left join)', () => {
    const described = joinTopology('leftJoin', windows).build().describe().toString();
    for (const line of [
      'Processor: KSTREAM-WINDOWED-0000000002 (stores: [KSTREAM-JOINTHIS-0000000004-store])',
      'Processor: KSTREAM-WINDOWED-0000000003 (stores: [KSTREAM-OUTEROTHER-0000000005-store])',
      'Processor: KSTREAM-JOINTHIS-0000000004 (stores: [KSTREAM-OUTEROTHER-0000000005-store, KSTREAM-OUTERSHARED-0000000004-store])',
      'Processor: KSTREAM-OUTEROTHER-0000000005 (stores: [KSTREAM-JOINTHIS-0000000004-store, KSTREAM-OUTERSHARED-0000000004-store])',
      '<-- KSTREAM-JOINTHIS-0000000004, KSTREAM-OUTEROTHER-0000000005',
    ]) {
      expect(described).toContain(line);
    }
  });

  it('takes StreamJoined names: processors <name>-..., stores <storeName>-..., repartition topics <name>-left/-right', () => {
    const b = new StreamsBuilder();
    const orders = b.stream<string, string>('orders').selectKey((_k, v) => v);
    const payments = b.stream<string, string>('payments');
    orders.outerJoin(payments, pair, windows, { name: 'op', storeName: 'st' }).to('out');
    const topology = b.build();
    const described = topology.describe().toString();
    for (const name of ['op-this-windowed', 'op-outer-this-join', 'op-outer-other-join', 'op-merge']) {
      expect(described).toContain(`Processor: ${name} `);
    }
    for (const store of [
      'st-outer-this-join-store',
      'st-outer-other-join-store',
      'st-outer-shared-join-store',
    ]) {
      expect(described).toContain(store);
    }
    expect(described).toContain('Sink: op-left-repartition-sink (topic: op-left-repartition)');
    expect(topology.internalBuilder.copartitionGroups('app')).toEqual([
      ['app-op-left-repartition', 'payments'],
    ]);
  });

  it('passes the key to a ValueJoinerWithKey, in every result', async () => {
    const b = new StreamsBuilder();
    b.stream<string, string>('left')
      .outerJoin(
        b.stream<string, string>('right'),
        (k: string, l: string | null, r: string | null) => `${k}:${l}/${r}`,
        windows,
      )
      .to('out');
    const rows = await run(start(b), [
      [1, 'left', 'A'],
      [2, 'right', 'a'],
      [30, 'right', 'b'],
      [60, 'left', 'C'],
    ]);
    expect(rows).toEqual([[], ['k:A/a@2'], [], ['k:null/b@30']]);
  });

  it('outer join: a null key is joined with null at once (KIP-962); null values, and null keys of an inner join, are dropped and counted', async () => {
    const outer = start(joinTopology('outerJoin', windows));
    expect(
      await run(outer, [
        [5, 'left', 'A', null as unknown as string],
        [6, 'right', null],
      ]),
    ).toEqual([['null:[A, null]@5'], []]);
    expect(outer.droppedRecordsTotal).toBe(1);
    await outer.close();
    const inner = start(joinTopology('join', windows));
    await run(inner, [[5, 'left', 'A', null as unknown as string]]);
    expect(inner.droppedRecordsTotal).toBe(1);
  });

  it('left join: a record whose window closed before it came is joined with null at once; a late partner is not joined', async () => {
    const rows = await run(start(joinTopology('leftJoin', JoinWindows.ofTimeDifferenceWithNoGrace(5))), [
      [100, 'right', 'x'],
      [10, 'left', 'old'],
      [101, 'left', 'A'],
      [50, 'right', 'late'],
    ]);
    expect(rows).toEqual([[], ['[old, null]@10'], ['[A, x]@101'], []]);
  });

  it('asymmetric windows: before(0).after(10) joins a left record only with right records up to 10 later', async () => {
    const rows = await run(
      start(joinTopology('join', JoinWindows.ofTimeDifferenceWithNoGrace(10).before(0))),
      [
        [20, 'right', 'early'],
        [25, 'left', 'A'],
        [30, 'right', 'b'],
        [35, 'right', 'c'],
        [36, 'right', 'd'],
      ],
    );
    expect(rows).toEqual([[], [], ['[A, b]@30'], ['[A, c]@35'], []]);
  });

  it('a re-keyed side goes through a repartition topic that keeps null keys for a left join', async () => {
    const b = new StreamsBuilder();
    b.stream<string, string>('left')
      .selectKey((_k, v): string | null => (v === 'none' ? null : 'k'))
      .leftJoin(b.stream<string, string>('right'), pair, windows)
      .to('out');
    const d = start(b);
    expect(
      await run(d, [
        [3, 'left', 'none'],
        [4, 'right', 'a'],
        [5, 'left', 'B'],
      ]),
    ).toEqual([['null:[none, null]@3'], [], ['[B, a]@5']]);
    expect(d.producedTopicNames()).toContain('test-app-KSTREAM-KEY-SELECT-0000000001-repartition');
  });

  it("writes the shared store in Kafka Streams' layout: [timestamp][1 = left][key] -> [1][count]([length][1][value])*", async () => {
    const d = start(joinTopology('leftJoin', windows));
    await run(d, [
      [3, 'left', 'A'],
      [3, 'left', 'B'],
    ]);
    const changelog = d.createOutputTopic(
      'test-app-KSTREAM-OUTERSHARED-0000000004-store-changelog',
      Serdes.Bytes(),
      Serdes.Bytes(),
    );
    const records = changelog.readRecordsToList();
    const key = Buffer.concat([Buffer.from([0, 0, 0, 0, 0, 0, 0, 3, 1]), Buffer.from('k')]);
    const item = (v: string) => Buffer.concat([Buffer.from([0, 0, 0, 2, 1]), Buffer.from(v)]);
    expect(records.map((r) => [r.key, r.value])).toEqual([
      [key, Buffer.concat([Buffer.from([1, 0, 0, 0, 1]), item('A')])],
      [key, Buffer.concat([Buffer.from([1, 0, 0, 0, 2]), item('A'), item('B')])],
    ]);
  });

  it('writes no changelogs with StreamJoined.loggingEnabled false, three with the default', async () => {
    const changelogs = async (loggingEnabled: boolean | undefined) => {
      const b = new StreamsBuilder();
      b.stream<string, string>('left')
        .leftJoin(b.stream<string, string>('right'), pair, windows, { loggingEnabled })
        .to('out');
      const d = start(b);
      await run(d, [
        [3, 'left', 'A'],
        [4, 'right', 'a'],
        [40, 'left', 'B'],
      ]);
      const topics = d.producedTopicNames().filter((t) => t.endsWith('-changelog'));
      await d.close();
      driver = undefined;
      return topics.sort();
    };
    expect(await changelogs(false)).toEqual([]);
    expect(await changelogs(undefined)).toEqual([
      'test-app-KSTREAM-JOINTHIS-0000000004-store-changelog',
      'test-app-KSTREAM-OUTEROTHER-0000000005-store-changelog',
      'test-app-KSTREAM-OUTERSHARED-0000000004-store-changelog',
    ]);
  });

  it('says what to change for a missing JoinWindows or an outer join with a table', () => {
    const b = new StreamsBuilder();
    const left = b.stream<string, string>('left');
    const right = b.stream<string, string>('right');
    expect(() => left.join(right, pair, undefined as unknown as JoinWindows)).toThrow(/pass JoinWindows/);
    expect(() => left.outerJoin(b.table('t') as unknown as KStream<string, string>, pair, windows)).toThrow(
      /outerJoin joins two streams: pass a KStream/,
    );
    expect(() => JoinWindows.ofTimeDifferenceWithNoGrace(5).before(-6)).toThrow(/must not be negative/);
  });
});

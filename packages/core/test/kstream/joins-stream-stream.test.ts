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
  input: ReadonlyArray<readonly [number, 'left' | 'right', string | null, string?]>,
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

/** The DSL guide's input: [timestamp, side, value] for one key. */
const DOCS_INPUT = [
  [1, 'left', null],
  [2, 'right', null],
  [3, 'left', 'A'],
  [4, 'right', 'a'],
  [5, 'left', 'B'],
  [6, 'right', 'b'],
  [7, 'left', null],
  [8, 'right', null],
  [9, 'left', 'C'],
  [10, 'right', 'c'],
  [11, 'right', null],
  [12, 'left', null],
  [13, 'right', null],
  [14, 'right', 'd'],
  [15, 'left', 'D'],
  [40, 'left', 'E'],
  [60, 'left', 'F'],
  [80, 'right', 'f'],
  [100, 'left', 'G'],
] as const;

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

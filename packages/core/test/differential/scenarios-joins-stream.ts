// The differential scenarios of stream-stream joins (issue 13), merged into scenarios.ts. Each
// topology has a namesake in scripts/differential/StreamJoins.java; Java's driver advances its
// wall clock a second per record for them (Kafka Streams scans for closed windows at most once a
// second). Inputs: the DSL guide's join table, then seeded random sequences over a few keys with
// out-of-order records within the grace, late records past it, null keys and null values.
import type { Scenario, ScenarioInput } from '../../../../scripts/differential/kafka-streams.ts';
import { JoinWindows, type KStream, type StreamsBuilder } from '../../src/kstream/index.ts';
import { Serdes } from '../../src/serdes/serdes.ts';
import { DSL_GUIDE_STREAM_JOIN_INPUT, dslGuideTopicRecords } from '../fixtures/dsl-guide-joins.ts';

const S = Serdes.String();
const pair = (l: string | null, r: string | null) => `[${l}, ${r}]`;
const keyed = (k: string | null, l: string | null, r: string | null) => `${k}:${l}/${r}`;
const windows = (difference: number, grace: number) =>
  JoinWindows.ofTimeDifferenceAndGrace(difference, grace);
/** A value's first letter, null for "none" (and null values). */
const rekey = (v: string | null) => (v === null || v === 'none' ? null : v.slice(0, 1));

type Build = (left: KStream<string, string>, right: KStream<string, string>, b: StreamsBuilder) => void;

const joins: Record<string, Build> = {
  'ss-docs-inner': (l, r) => l.join(r, pair, windows(15, 5)).to('out'),
  'ss-docs-left': (l, r) => l.leftJoin(r, pair, windows(15, 5)).to('out'),
  'ss-docs-outer': (l, r) => l.outerJoin(r, pair, windows(15, 5)).to('out'),
  'ss-inner-no-grace': (l, r) => l.join(r, pair, JoinWindows.ofTimeDifferenceWithNoGrace(10)).to('out'),
  'ss-left-grace': (l, r) => l.leftJoin(r, pair, windows(10, 5)).to('out'),
  'ss-outer-grace': (l, r) => l.outerJoin(r, pair, windows(10, 5)).to('out'),
  'ss-outer-no-grace': (l, r) => l.outerJoin(r, pair, JoinWindows.ofTimeDifferenceWithNoGrace(6)).to('out'),
  'ss-outer-asymmetric': (l, r) => l.outerJoin(r, pair, windows(10, 3).before(2).after(8)).to('out'),
  'ss-left-negative-before': (l, r) => l.leftJoin(r, pair, windows(0, 4).after(9).before(-3)).to('out'),
  'ss-inner-zero': (l, r) => l.join(r, pair, JoinWindows.ofTimeDifferenceWithNoGrace(0)).to('out'),
  'ss-named-left-with-key': (l, r) =>
    l
      .leftJoin(r, keyed, windows(10, 5), {
        keySerde: S,
        valueSerde: S,
        otherValueSerde: S,
        name: 'orders-payments',
        storeName: 'pay',
      })
      .to('out'),
  'ss-rekey-outer': (l, r) =>
    l
      .selectKey((_k, v) => rekey(v))
      .outerJoin(
        r.selectKey((_k, v) => rekey(v)),
        keyed,
        windows(10, 5),
      )
      .to('out'),
  'ss-rekey-inner-named': (l, r) =>
    l
      .selectKey((_k, v) => rekey(v))
      .join(r, pair, windows(10, 5), { storeName: 'st', name: 'rk' })
      .to('out'),
  'ss-rekey-self': (l, r) => {
    const rekeyed = l.selectKey((_k, v) => rekey(v));
    rekeyed.join(rekeyed, pair, windows(5, 2)).to('out');
    r.to('unused');
  },
  // One repartition for both joins; the left join makes it keep null keys (KIP-962).
  'ss-rekey-twice': (l, r) => {
    const rekeyed = l.selectKey((_k, v) => rekey(v));
    rekeyed.join(r, pair, windows(3, 0)).to('inner');
    rekeyed.leftJoin(r, keyed, windows(10, 5)).to('out');
  },
  'ss-self-inner': (l, r) => {
    l.join(l, pair, windows(5, 2)).to('out');
    r.to('unused');
  },
  'ss-self-outer': (l, r) => {
    l.outerJoin(
      l.mapValues((v) => `${v}'`),
      pair,
      windows(5, 2),
    ).to('out');
    r.to('unused');
  },
  'ss-chained': (l, r, b) => {
    const third = b.stream<string, string>('third');
    l.leftJoin(r, pair, windows(10, 2))
      .outerJoin(third, (lr, t) => `${lr}~${t}`, windows(5, 3))
      .to('out');
    l.join(r, pair, windows(3, 0)).to('inner');
  },
};

export const joinStreamTopologies: Record<string, (builder: StreamsBuilder) => void> = Object.fromEntries(
  Object.entries(joins).map(([name, build]) => [
    name,
    (b: StreamsBuilder) => build(b.stream<string, string>('left'), b.stream<string, string>('right'), b),
  ]),
);

const docsInput: ScenarioInput[] = dslGuideTopicRecords(DSL_GUIDE_STREAM_JOIN_INPUT);

/** A small seeded generator (mulberry32), so that both sides get the same records. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * `n` records over `topics` and keys k1..k3 (some null), values whose first letters re-key them
 * (`none`: a null key after re-keying), null values; stream time moves 0..4 per record, and now
 * and then a record comes up to 8 back (within most graces) or 15..30 back (late).
 */
function randomInput(seed: number, n: number, topics: readonly string[]): ScenarioInput[] {
  const rand = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const values = ['apple', 'avocado', 'banana', 'blue', 'cherry', 'none', 'x'];
  let time = 20;
  return Array.from({ length: n }, () => {
    time += Math.floor(rand() * 5);
    const roll = rand();
    const back = rand();
    const timestamp =
      back < 0.07 ? time - 15 - Math.floor(rand() * 16) : back < 0.22 ? time - Math.floor(rand() * 9) : time;
    return {
      topic: pick(topics),
      key: roll < 0.06 ? null : pick(['k1', 'k2', 'k3']),
      value: roll > 0.9 ? null : pick(values),
      timestamp: Math.max(0, timestamp),
    };
  });
}

const out = { topic: 'out', value: 'string' } as const;
const two = ['left', 'right'] as const;

const scenario = (
  name: string,
  topology: string,
  inputs: ScenarioInput[],
  options: { describe?: boolean; outputs?: Scenario['outputs'] } = {},
): Scenario => ({
  name,
  topology,
  inputs,
  outputs: options.outputs ?? [out],
  ...(options.describe ? { describe: true } : {}),
});

export const joinStreamScenarios: Scenario[] = [
  scenario('stream-stream inner join, DSL guide table', 'ss-docs-inner', docsInput, { describe: true }),
  scenario('stream-stream left join, DSL guide table', 'ss-docs-left', docsInput, { describe: true }),
  scenario('stream-stream outer join, DSL guide table', 'ss-docs-outer', docsInput, { describe: true }),
  // The shared store's changelog, read as strings on both sides: Kafka Streams' byte layout,
  // record for record (Kafka Streams stamps it with the input record's time, kstreams with the
  // commit's, as for every plain key-value store).
  scenario(
    "a left join's shared store: its changelog as Kafka Streams writes it",
    'ss-left-grace',
    randomInput(20, 60, two),
    {
      outputs: [
        out,
        {
          topic: 'differential-KSTREAM-OUTERSHARED-0000000004-store-changelog',
          value: 'string',
          timestamps: false,
        },
      ],
    },
  ),
  scenario(
    'stream-stream inner join without grace, random input',
    'ss-inner-no-grace',
    randomInput(21, 150, two),
  ),
  scenario('stream-stream left join with grace, random input', 'ss-left-grace', randomInput(22, 150, two)),
  scenario('stream-stream outer join with grace, random input', 'ss-outer-grace', randomInput(23, 150, two)),
  scenario(
    'stream-stream outer join without grace, random input',
    'ss-outer-no-grace',
    randomInput(24, 150, two),
  ),
  scenario('stream-stream outer join, asymmetric window', 'ss-outer-asymmetric', randomInput(25, 150, two)),
  scenario('stream-stream left join, negative before', 'ss-left-negative-before', randomInput(26, 150, two)),
  scenario('stream-stream inner join, time difference 0', 'ss-inner-zero', randomInput(27, 150, two)),
  scenario(
    'stream-stream left join: StreamJoined names and stores, ValueJoinerWithKey',
    'ss-named-left-with-key',
    randomInput(28, 120, two),
    { describe: true },
  ),
  scenario(
    'stream-stream outer join of two re-keyed streams (null keys kept, KIP-962)',
    'ss-rekey-outer',
    randomInput(29, 150, two),
    { describe: true },
  ),
  scenario(
    'stream-stream inner join of a re-keyed stream, named',
    'ss-rekey-inner-named',
    randomInput(30, 150, two),
    { describe: true },
  ),
  scenario(
    'stream-stream self-join of a re-keyed stream (one repartition topic)',
    'ss-rekey-self',
    randomInput(34, 100, ['left']),
    {
      describe: true,
    },
  ),
  scenario(
    'a re-keyed stream joined twice (inner, then left: null keys kept)',
    'ss-rekey-twice',
    randomInput(35, 150, two),
    {
      describe: true,
      outputs: [out, { topic: 'inner', value: 'string' }],
    },
  ),
  scenario('stream-stream self-join', 'ss-self-inner', randomInput(31, 100, ['left']), { describe: true }),
  scenario(
    'stream-stream outer self-join through mapValues',
    'ss-self-outer',
    randomInput(32, 100, ['left']),
  ),
  scenario(
    'stream-stream joins chained and side by side',
    'ss-chained',
    randomInput(33, 200, [...two, 'third']),
    {
      outputs: [out, { topic: 'inner', value: 'string' }],
    },
  ),
];

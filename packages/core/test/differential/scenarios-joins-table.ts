// The differential scenarios of stream-table, table-table and global-table joins (issue 13),
// merged into scenarios.ts. Each topology has a namesake in Differential.java's "stream-table,
// table-table and global joins" block. Inputs: the DSL guide's join table (one key, timestamps
// 1..15), then seeded random sequences over a few keys with out-of-order timestamps, tombstones
// (also for absent keys), null keys and null values.
import type { Scenario, ScenarioInput } from '../../../../scripts/differential/kafka-streams.ts';
import type { KTable, StreamsBuilder } from '../../src/kstream/index.ts';
import { Serdes } from '../../src/serdes/serdes.ts';
import { DSL_GUIDE_JOIN_INPUT, dslGuideTopicRecords } from '../fixtures/dsl-guide-joins.ts';

const L = Serdes.Long();

const pair = (l: string | null, r: string | null) => `[${l}, ${r}]`;
const plus = (v: string, t: string | null) => `${v}|${t}`;

/** Null-safe: a record with a null value reaches the key selector before the join drops it. */
const joinKey = (v: string | null) => (v === null || v === 'none' ? null : v.slice(0, 2));

function tables(b: StreamsBuilder): [KTable<string, string>, KTable<string, string>] {
  return [b.table<string, string>('left'), b.table<string, string>('right')];
}

export const joinTableTopologies: Record<string, (builder: StreamsBuilder) => void> = {
  'st-inner': (b) => {
    const table = b.table<string, string>('right');
    b.stream<string, string>('left').join(table, plus).to('out');
  },
  'st-left': (b) => {
    const table = b.table<string, string>('right');
    b.stream<string, string>('left').leftJoin(table, plus).to('out');
  },
  // A re-keyed stream (repartitioned; a left join keeps null keys), a filtered and mapped table
  // read through value getters, and a ValueJoinerWithKey.
  'st-rekey-left-getters': (b) => {
    const table = b
      .table<string, string>('right')
      .filter((_k, v) => v.length > 1)
      .mapValues((v) => v.toUpperCase());
    b.stream<string, string>('left')
      .selectKey((_k, v) => joinKey(v))
      .leftJoin(table, (k: string | null, v: string, t: string | null) => `${k}/${v}/${t}`)
      .to('out');
  },
  'st-rekey-inner': (b) => {
    const table = b.table<string, string>('right');
    b.stream<string, string>('left')
      .selectKey((_k, v) => joinKey(v))
      .join(table, plus)
      .to('out');
  },
  'tt-inner': (b) => {
    const [l, r] = tables(b);
    l.join(r, pair).toStream().to('out');
  },
  'tt-left': (b) => {
    const [l, r] = tables(b);
    l.leftJoin(r, pair).toStream().to('out');
  },
  'tt-outer': (b) => {
    const [l, r] = tables(b);
    l.outerJoin(r, pair).toStream().to('out');
  },
  // Old values through the join to a re-grouping, which subtracts the old result.
  'tt-left-regroup-count': (b) => {
    const [l, r] = tables(b);
    const joined = l.leftJoin(r, pair);
    joined.toStream().to('out');
    joined
      .groupBy((k, v) => ({ key: v, value: k }))
      .count()
      .toStream()
      .to('counts', { valueSerde: L });
  },
  'tt-outer-regroup-count': (b) => {
    const [l, r] = tables(b);
    l.outerJoin(r, pair)
      .groupBy((k, v) => ({ key: v.length > 8 ? 'long' : 'short', value: k }))
      .count()
      .toStream()
      .to('counts', { valueSerde: L });
  },
  // A filtered left side (its old values make the filter drop changes neither side passes).
  'tt-filter-left-map-right': (b) => {
    const l = b.table<string, string>('left').filter((_k, v) => v !== 'x');
    const r = b.table<string, string>('right').mapValues((v) => `${v}!`);
    l.leftJoin(r, pair).toStream().to('out');
  },
  // A join of a join result: materialized (its store) and not (its value getter).
  'tt-chain': (b) => {
    const [l, r] = tables(b);
    const third = b.table<string, string>('third');
    l.outerJoin(r, pair, { storeName: 'joined' })
      .join(third, (a, c) => `${a}+${c}`)
      .toStream()
      .to('out');
    l.join(r, pair)
      .leftJoin(third, (a, c) => `${a}~${c}`)
      .toStream()
      .to('chained');
  },
  'global-inner': (b) => {
    const table = b.globalTable<string, string>('right');
    b.stream<string, string>('left')
      .join(table, (_k, v) => joinKey(v), plus)
      .to('out');
  },
  'global-left': (b) => {
    const table = b.globalTable<string, string>('right');
    b.stream<string, string>('left')
      .leftJoin(
        table,
        (_k, v) => joinKey(v),
        (k: string | null, v: string, t: string | null) => `${k}/${v}/${t}`,
      )
      .to('out');
  },
};

const docsInput: ScenarioInput[] = dslGuideTopicRecords(DSL_GUIDE_JOIN_INPUT);

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
 * `n` records over `topics`, keys k1..k4 (some null), values that are table keys for the re-keying
 * topologies (`k1x`: join key `k1`; `none`: a null join key), tombstones, and timestamps that go
 * back by up to 5 now and then.
 */
function randomInput(seed: number, n: number, topics: readonly string[]): ScenarioInput[] {
  const rand = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const values = ['k1x', 'k2', 'k3yy', 'k4', 'x', 'none', 'longer-value', 'a'];
  let time = 10;
  return Array.from({ length: n }, () => {
    time += Math.floor(rand() * 3);
    const roll = rand();
    return {
      topic: pick(topics),
      key: roll < 0.06 ? null : pick(['k1', 'k2', 'k3', 'k4']),
      value: roll > 0.8 ? null : pick(values),
      timestamp: rand() < 0.2 ? Math.max(0, time - Math.floor(rand() * 6)) : time,
    };
  });
}

const out = { topic: 'out', value: 'string' } as const;
const counts = { topic: 'counts', value: 'long' } as const;

const scenario = (
  name: string,
  topology: string,
  inputs: ScenarioInput[],
  outputs: Scenario['outputs'] = [out],
): Scenario => ({ name, topology, inputs, outputs });

const two = ['left', 'right'] as const;

export const joinTableScenarios: Scenario[] = [
  scenario('stream-table inner join, DSL guide table', 'st-inner', docsInput),
  scenario('stream-table left join, DSL guide table', 'st-left', docsInput),
  scenario('table-table inner join, DSL guide table', 'tt-inner', docsInput),
  scenario('table-table left join, DSL guide table', 'tt-left', docsInput),
  scenario('table-table outer join, DSL guide table', 'tt-outer', docsInput),
  scenario('stream-table inner join, random out-of-order input', 'st-inner', randomInput(1, 120, two)),
  scenario('stream-table left join, random out-of-order input', 'st-left', randomInput(2, 120, two)),
  scenario(
    'stream-table left join of a re-keyed stream with a filtered, mapped table (null keys kept)',
    'st-rekey-left-getters',
    randomInput(3, 120, two),
  ),
  scenario('stream-table inner join of a re-keyed stream', 'st-rekey-inner', randomInput(4, 120, two)),
  scenario('table-table inner join, random input with tombstones', 'tt-inner', randomInput(5, 150, two)),
  scenario('table-table left join, random input with tombstones', 'tt-left', randomInput(6, 150, two)),
  scenario('table-table outer join, random input with tombstones', 'tt-outer', randomInput(7, 150, two)),
  scenario(
    'table-table left join and a re-grouped count (old values subtracted)',
    'tt-left-regroup-count',
    randomInput(8, 150, two),
    [out, counts],
  ),
  scenario(
    'table-table outer join and a re-grouped count',
    'tt-outer-regroup-count',
    randomInput(9, 150, two),
    [counts],
  ),
  scenario(
    'table-table left join of a filtered and a mapped table',
    'tt-filter-left-map-right',
    randomInput(10, 150, two),
  ),
  scenario(
    'joins of join results, materialized and not',
    'tt-chain',
    randomInput(11, 200, ['left', 'right', 'third']),
    [out, { topic: 'chained', value: 'string' }],
  ),
  scenario('stream-global inner join with a key selector', 'global-inner', randomInput(12, 120, two)),
  scenario('stream-global left join (ValueJoinerWithKey)', 'global-left', randomInput(13, 120, two)),
];

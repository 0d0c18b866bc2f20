// The differential scenarios of foreign-key table joins (KIP-213), merged into scenarios.ts. Each
// topology has a namesake in Differential.java's foreign-key block. Besides the results, the
// scenarios read the subscription registration and response topics as bytes: the same names, and
// the same wrapper bytes (version, instruction, hash of the left value, keys, values), record for
// record, as Kafka Streams writes them.
import type { Scenario, ScenarioInput } from '../../../../scripts/differential/kafka-streams.ts';
import type { KTable, StreamsBuilder } from '../../src/kstream/index.ts';
import { Serdes } from '../../src/serdes/serdes.ts';

const L = Serdes.Long();
const pair = (l: string | null, r: string | null) => `[${l}, ${r}]`;
const plus = (v: string, t: string | null) => `${v}|${t}`;
/** Left values are `<foreign key>:<anything>`; `none...` has no foreign key. */
const fk = (v: string): string | null => (v.startsWith('none') ? null : v.split(':')[0]!);

function tables(b: StreamsBuilder): [KTable<string, string>, KTable<string, string>] {
  return [b.table<string, string>('left'), b.table<string, string>('right')];
}

export const joinFkTopologies: Record<string, (builder: StreamsBuilder) => void> = {
  'fk-inner': (b) => {
    const [l, r] = tables(b);
    l.join(r, fk, plus).toStream().to('out');
  },
  'fk-left': (b) => {
    const [l, r] = tables(b);
    l.leftJoin(r, fk, plus).toStream().to('out');
  },
  'fk-key-extractor': (b) => {
    const [l, r] = tables(b);
    l.join(r, (k: string, v: string) => (k === 'o4' ? null : fk(v)), plus)
      .toStream()
      .to('out');
  },
  // TableJoined.as("fkj") and Materialized.as("fk-result"): named nodes, topics and store; the
  // result's old values feed a re-grouped count.
  'fk-named-materialized-regroup': (b) => {
    const [l, r] = tables(b);
    const joined = l.leftJoin(r, fk, plus, { name: 'fkj', storeName: 'fk-result' });
    joined.toStream().to('out');
    joined
      .groupBy((k, v) => ({ key: v.slice(v.indexOf('|') + 1), value: k }))
      .count()
      .toStream()
      .to('counts', { valueSerde: L });
  },
  // A table joined with itself (an order naming another order): one sub-topology writes and reads
  // both internal topics.
  'fk-self': (b) => {
    const t = b.table<string, string>('left');
    t.leftJoin(t, fk, plus).toStream().to('out');
  },
  // Value getters on both sides (a mapped left table, a filtered and mapped right table), and a
  // table-table join of the result, which materializes it.
  'fk-getters-chain': (b) => {
    const r = b
      .table<string, string>('right')
      .filter((_k, v) => v !== 'x')
      .mapValues((v) => v.toUpperCase());
    const third = b.table<string, string>('third');
    b.table<string, string>('left')
      .mapValues((v) => `${v}!`)
      .join(r, fk, plus)
      .leftJoin(third, pair)
      .toStream()
      .to('out');
  },
};

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
 * `n` records: orders o1..o4 on 'left' (values naming products p1..p4, or none), products p1..p4
 * on 'right' (and 'third' rows keyed by order), some null keys, tombstones (also for absent keys),
 * foreign-key changes, and timestamps that go back by up to 5 now and then.
 */
function randomInput(
  seed: number,
  n: number,
  topics: readonly string[],
  orders: readonly string[] = ['p1:1', 'p2:2', 'p3:1', 'p1:5', 'p4:2', 'none:3', 'p2:9'],
): ScenarioInput[] {
  const rand = prng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const products = ['apple', 'pear', 'x', 'plum', 'fig'];
  let time = 10;
  return Array.from({ length: n }, () => {
    time += Math.floor(rand() * 3);
    const topic = pick(topics);
    const roll = rand();
    const keys = topic === 'right' ? ['p1', 'p2', 'p3', 'p4'] : ['o1', 'o2', 'o3', 'o4'];
    return {
      topic,
      key: roll < 0.05 ? null : pick(keys),
      value: roll > 0.82 ? null : pick(topic === 'left' ? orders : products),
      timestamp: rand() < 0.2 ? Math.max(0, time - Math.floor(rand() * 6)) : time,
    };
  });
}

/** Foreign-key changes, right-side updates and deletes, left tombstones, one by one. */
const stepsInput: ScenarioInput[] = (
  [
    ['left', 'o1', 'p1:1', 1], // no product yet
    ['right', 'p1', 'apple', 2], // joins o1
    ['left', 'o2', 'p1:2', 3], // joins at once
    ['right', 'p1', 'green apple', 4], // updates o1 and o2
    ['left', 'o1', 'p2:1', 5], // foreign key changes to a product that does not exist
    ['right', 'p2', 'pear', 6], // now it does
    ['left', 'o1', 'p2:7', 2], // out of order, same foreign key
    ['right', 'p1', null, 8], // deletes o2's result
    ['left', 'o2', null, 9], // a left tombstone
    ['left', 'o3', null, 10], // a tombstone for an absent row
    ['left', 'o3', 'none:1', 11], // no foreign key
    ['left', 'o3', 'p2:3', 12], // gets one
    ['left', 'o3', 'none:2', 13], // loses it
    ['right', 'p2', null, 14], // deletes o1
    ['right', 'p9', null, 15], // a tombstone nobody subscribed to
    ['left', 'o1', null, 16],
  ] as const
).map(([topic, key, value, timestamp]) => ({ topic, key, value, timestamp }));

const out = { topic: 'out', value: 'string' } as const;
const counts = { topic: 'counts', value: 'long' } as const;
/** The internal topics of an unnamed join of two source tables (the first join of the topology). */
const wire = (registration: string, response: string): Scenario['outputs'] => [
  { topic: `differential-${registration}`, value: 'hex' },
  { topic: `differential-${response}`, value: 'hex' },
];
const unnamedWire = wire(
  'KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-0000000006-topic',
  'KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-0000000014-topic',
);
/**
 * The subscription store's changelog (combined keys, subscriptions), for input without deletions:
 * kstreams writes a store deletion's changelog tombstone without the record's timestamp, Kafka
 * Streams with it (a difference of every store, not of this join).
 */
const storeChangelog = {
  topic: 'differential-KTABLE-FK-JOIN-SUBSCRIPTION-STATE-STORE-0000000010-changelog',
  value: 'hex',
} as const;
const noDeletions: ScenarioInput[] = [
  ...stepsInput.slice(0, 4),
  { topic: 'left', key: 'o3', value: 'p1:9', timestamp: 5 },
  { topic: 'left', key: 'o3', value: 'p1:8', timestamp: 3 },
];

const scenario = (
  name: string,
  topology: string,
  inputs: ScenarioInput[],
  outputs: Scenario['outputs'],
): Scenario => ({ name, topology, inputs, outputs });

const two = ['left', 'right'] as const;

export const joinFkScenarios: Scenario[] = [
  scenario('foreign-key join, the subscription store changelog', 'fk-inner', noDeletions, [
    out,
    ...unnamedWire,
    storeChangelog,
  ]),
  scenario('foreign-key inner join, step by step (and its wire bytes)', 'fk-inner', stepsInput, [
    out,
    ...unnamedWire,
  ]),
  scenario('foreign-key left join, step by step (and its wire bytes)', 'fk-left', stepsInput, [
    out,
    ...unnamedWire,
  ]),
  scenario('foreign-key inner join, random out-of-order input', 'fk-inner', randomInput(21, 200, two), [
    out,
    ...unnamedWire,
  ]),
  scenario('foreign-key left join, random out-of-order input', 'fk-left', randomInput(22, 200, two), [
    out,
    ...unnamedWire,
  ]),
  scenario('foreign-key join with a (key, value) extractor', 'fk-key-extractor', randomInput(23, 150, two), [
    out,
  ]),
  scenario(
    'named, materialized foreign-key left join and a re-grouped count',
    'fk-named-materialized-regroup',
    randomInput(24, 200, two),
    [out, counts, ...wire('fkj-subscription-registration-topic', 'fkj-subscription-response-topic')],
  ),
  scenario(
    'foreign-key left join of a table with itself',
    'fk-self',
    randomInput(26, 150, ['left'], ['o1:a', 'o2:b', 'o3:c', 'o4:d', 'o2:e', 'none:f']),
    // One table before the join: its names start at 3.
    [
      out,
      ...wire(
        'KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-0000000003-topic',
        'KTABLE-FK-JOIN-SUBSCRIPTION-RESPONSE-0000000011-topic',
      ),
    ],
  ),
  scenario(
    'foreign-key join of value getters, then a table-table join of the result',
    'fk-getters-chain',
    randomInput(25, 200, ['left', 'right', 'third']),
    [out],
  ),
];

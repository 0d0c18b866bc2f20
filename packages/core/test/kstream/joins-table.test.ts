// Stream-table and table-table joins through the test driver: the join tables of Kafka Streams'
// DSL guide ("Joining": KStream-KTable, KTable-KTable equi-joins; one key, timestamps 1..15),
// every input record and every result with its timestamp, then the options around them
// (repartitioning, value getters, old values for a downstream aggregation, ValueJoinerWithKey).
// The differential harness (test/differential/scenarios-joins-table.ts) compares the same with
// Kafka Streams itself.
import { afterEach, describe, expect, it } from 'vitest';
import { type KStream, type KTable, StreamsBuilder } from '../../src/kstream/index.ts';
import { Serdes } from '../../src/serdes/serdes.ts';
import { TopologyTestDriver } from '../../src/testing/index.ts';
import { DSL_GUIDE_JOIN_INPUT as DOCS_INPUT } from '../fixtures/dsl-guide-joins.ts';

const S = Serdes.String();
const L = Serdes.Long();
let driver: TopologyTestDriver | undefined;

afterEach(async () => {
  await driver?.close();
  driver = undefined;
});

function start(builder: StreamsBuilder): TopologyTestDriver {
  driver = new TopologyTestDriver(builder.build(), { defaultKeySerde: S, defaultValueSerde: S });
  return driver;
}

const docsJoiner = (left: string | null, right: string | null) => `[${left}, ${right}]`;

async function runDocsTable(
  topology: (left: string, right: string, builder: StreamsBuilder) => void,
): Promise<Array<[number, string | null]>> {
  const builder = new StreamsBuilder();
  topology('left', 'right', builder);
  const d = start(builder);
  const inputs = { left: d.createInputTopic('left', S, S), right: d.createInputTopic('right', S, S) };
  for (const [timestamp, side, value] of DOCS_INPUT) await inputs[side].pipeInput('k', value, timestamp);
  return d
    .createOutputTopic('out', S, S)
    .readRecordsToList()
    .map((r) => {
      expect(r.key).toBe('k');
      return [r.timestamp, r.value];
    });
}

describe('KStream-KTable join (DSL guide table)', () => {
  const streamTable = (leftJoin: boolean) => (left: string, right: string, b: StreamsBuilder) => {
    const stream: KStream<string, string> = b.stream(left);
    const table: KTable<string, string> = b.table(right);
    const joined = leftJoin ? stream.leftJoin(table, docsJoiner) : stream.join(table, docsJoiner);
    joined.to('out');
  };

  it('inner join: only stream records with a table row, at the stream record time', async () => {
    expect(await runDocsTable(streamTable(false))).toEqual([
      [5, '[B, a]'],
      [15, '[D, d]'],
    ]);
    // The null-value stream records (1, 7, 12) are dropped and counted.
    expect(driver!.droppedRecordsTotal).toBe(3);
  });

  it('left join: every non-null stream record, null where the table has no row', async () => {
    expect(await runDocsTable(streamTable(true))).toEqual([
      [3, '[A, null]'],
      [5, '[B, a]'],
      [9, '[C, null]'],
      [15, '[D, d]'],
    ]);
    expect(driver!.droppedRecordsTotal).toBe(3);
  });
});

describe('KTable-KTable join (DSL guide table)', () => {
  const tableTable =
    (kind: 'join' | 'leftJoin' | 'outerJoin') => (left: string, right: string, b: StreamsBuilder) => {
      const l: KTable<string, string> = b.table(left);
      const r: KTable<string, string> = b.table(right);
      const joined =
        kind === 'join'
          ? l.join(r, docsJoiner)
          : kind === 'leftJoin'
            ? l.leftJoin(r, docsJoiner)
            : l.outerJoin(r, docsJoiner);
      joined.toStream().to('out');
    };

  it('inner join: a result while both have a row, tombstones when it stops; max timestamp', async () => {
    expect(await runDocsTable(tableTable('join'))).toEqual([
      [4, '[A, a]'],
      [5, '[B, a]'],
      [6, '[B, b]'],
      [7, null],
      [10, '[C, c]'],
      [11, null],
      [15, '[D, d]'],
    ]);
  });

  it('left join', async () => {
    expect(await runDocsTable(tableTable('leftJoin'))).toEqual([
      [3, '[A, null]'],
      [4, '[A, a]'],
      [5, '[B, a]'],
      [6, '[B, b]'],
      [7, null],
      [9, '[C, null]'],
      [10, '[C, c]'],
      [11, '[C, null]'],
      [12, null],
      [15, '[D, d]'],
    ]);
  });

  it('outer join', async () => {
    expect(await runDocsTable(tableTable('outerJoin'))).toEqual([
      [3, '[A, null]'],
      [4, '[A, a]'],
      [5, '[B, a]'],
      [6, '[B, b]'],
      [7, '[null, b]'],
      [8, null],
      [9, '[C, null]'],
      [10, '[C, c]'],
      [11, '[C, null]'],
      [12, null],
      [14, '[null, d]'],
      [15, '[D, d]'],
    ]);
  });
});

describe('stream-table join options', () => {
  it('repartitions a re-keyed stream (named by Joined) and joins on the new key', async () => {
    const b = new StreamsBuilder();
    const table = b.table<string, string>('customers');
    b.stream<string, string>('orders')
      .selectKey((_orderId, customer) => customer)
      .join(table, (order, customer) => `${order}:${customer}`, { name: 'orders-by-customer' })
      .to('out');
    const topology = b.build();
    expect(topology.describe().toString()).toContain('orders-by-customer-repartition');
    driver = new TopologyTestDriver(topology, { defaultKeySerde: S, defaultValueSerde: S });
    await driver.createInputTopic('customers', S, S).pipeInput('c1', 'Alice', 1);
    await driver.createInputTopic('orders', S, S).pipeInput('o1', 'c1', 5);
    expect(driver.createOutputTopic('out', S, S).readRecordsToList()).toMatchObject([
      { key: 'c1', value: 'c1:Alice', timestamp: 5 },
    ]);
  });

  it('a left join keeps a null-key record and joins it with null (KIP-962)', async () => {
    const b = new StreamsBuilder();
    const table = b.table<string, string>('right');
    b.stream<string, string>('left')
      .leftJoin(table, (v, t) => `${v}+${t}`)
      .to('out');
    const d = start(b);
    await d.createInputTopic('left', S, S).pipeInput(null, 'x', 3);
    expect(d.createOutputTopic('out', S, S).readRecordsToList()).toMatchObject([
      { key: null, value: 'x+null', timestamp: 3 },
    ]);
    expect(d.droppedRecordsTotal).toBe(0);
  });

  it('reads a filtered or mapped table through its value getter, without a store of its own', async () => {
    const b = new StreamsBuilder();
    const table = b
      .table<string, string>('right')
      .filter((_k, v) => v !== 'hidden')
      .mapValues((v) => v.length);
    b.stream<string, string>('left')
      .leftJoin(table, (key: string, v: string, length: number | null) => `${key}:${v}:${length}`)
      .to('out');
    const topology = b.build();
    expect(topology.subtopologies('app')[0]!.stores.map((s) => s.name)).toEqual([
      'right-STATE-STORE-0000000001',
    ]);
    driver = new TopologyTestDriver(topology, { defaultKeySerde: S, defaultValueSerde: S });
    const right = driver.createInputTopic('right', S, S);
    const left = driver.createInputTopic('left', S, S);
    await right.pipeInput('a', 'four', 1);
    await right.pipeInput('b', 'hidden', 2);
    await left.pipeInput('a', 'x', 3);
    await left.pipeInput('b', 'y', 4);
    expect(driver.createOutputTopic('out', S, S).readValuesToList()).toEqual(['a:x:4', 'b:y:null']);
  });
});

describe('table-table join options', () => {
  it('sends old values to a downstream re-grouping, so that it subtracts the old result', async () => {
    const b = new StreamsBuilder();
    const l = b.table<string, string>('left');
    const r = b.table<string, string>('right');
    l.join(r, (lv, rv) => `${lv}${rv}`)
      .groupBy((_k, v) => ({ key: v, value: v }))
      .count()
      .toStream()
      .to('out', { valueSerde: L });
    const d = start(b);
    const left = d.createInputTopic('left', S, S);
    const right = d.createInputTopic('right', S, S);
    await left.pipeInput('k', 'A', 1);
    await right.pipeInput('k', 'a', 2);
    await left.pipeInput('k', 'B', 3);
    expect(
      d
        .createOutputTopic('out', S, L)
        .readRecordsToList()
        .map((x) => [x.key, x.value, x.timestamp]),
    ).toEqual([
      ['Aa', 1, 2],
      ['Aa', 0, 3],
      ['Ba', 1, 3],
    ]);
  });

  it('materializes the result when asked, with each row timestamp, and names the nodes', async () => {
    const b = new StreamsBuilder();
    const l = b.table<string, string>('left');
    const r = b.table<string, string>('right');
    l.leftJoin(r, (lv, rv) => `${lv}/${rv}`, { name: 'joined', storeName: 'joined-store' })
      .toStream()
      .to('out');
    const topology = b.build();
    const described = topology.describe().toString();
    expect(described).toContain('joined-join-this');
    expect(described).toContain('joined-join-other');
    driver = new TopologyTestDriver(topology, { defaultKeySerde: S, defaultValueSerde: S });
    await driver.createInputTopic('left', S, S).pipeInput('k', 'A', 7);
    await driver.createInputTopic('right', S, S).pipeInput('k', 'a', 3);
    expect(driver.getTimestampedKeyValueStore<string, string>('joined-store').get('k')).toEqual({
      value: 'A/a',
      timestamp: 7,
    });
  });

  it('joins a join result again (its value getter joins both sides on the fly)', async () => {
    const b = new StreamsBuilder();
    const x = b.table<string, string>('x');
    const y = b.table<string, string>('y');
    const z = b.table<string, string>('z');
    x.join(y, (a, c) => a + c)
      .join(z, (ac, d) => ac + d)
      .toStream()
      .to('out');
    const d = start(b);
    await d.createInputTopic('x', S, S).pipeInput('k', '1', 1);
    await d.createInputTopic('y', S, S).pipeInput('k', '2', 2);
    await d.createInputTopic('z', S, S).pipeInput('k', '3', 3);
    await d.createInputTopic('y', S, S).pipeInput('k', '4', 4);
    expect(
      d
        .createOutputTopic('out', S, S)
        .readRecordsToList()
        .map((r) => [r.value, r.timestamp]),
    ).toEqual([
      ['123', 3],
      ['143', 4],
    ]);
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { type KStream, StreamsBuilder } from '../../src/kstream/index.ts';
import type { FixedKeyProcessorContext, ProcessorContext } from '../../src/processor/processor.ts';
import { type FixedKeyRecord, Record } from '../../src/processor/record.ts';
import { Serdes } from '../../src/serdes/serdes.ts';
import type { KeyValueStore } from '../../src/state/index.ts';
import { Stores } from '../../src/state/index.ts';
import { TopologyTestDriver } from '../../src/testing/index.ts';

const S = Serdes.String();
const I = Serdes.Int32();
let driver: TopologyTestDriver | undefined;

afterEach(async () => {
  await driver?.close();
  driver = undefined;
});

/** Builds `in` (string -> int) -> ops -> `out`, pipes the records and returns what came out. */
async function run<KO, VO>(
  ops: (s: KStream<string, number>) => KStream<KO, VO>,
  out: {
    keySerde: import('../../src/serdes/serde.ts').Serde<KO>;
    valueSerde: import('../../src/serdes/serde.ts').Serde<VO>;
  },
  records: Array<[string | null, number]>,
) {
  const builder = new StreamsBuilder();
  ops(builder.stream('in', { keySerde: S, valueSerde: I })).to('out', out);
  driver = new TopologyTestDriver(builder.build());
  const input = driver.createInputTopic('in', S, I);
  for (const [k, v] of records) await input.pipeInput(k, v);
  return driver.createOutputTopic('out', out.keySerde, out.valueSerde).readKeyValuesToList();
}

const data: Array<[string, number]> = [
  ['a', 1],
  ['b', 2],
  ['c', 3],
  ['d', 4],
];

describe('KStream stateless operators', () => {
  it('filter and filterNot', async () => {
    expect(await run((s) => s.filter((_k, v) => v % 2 === 0), { keySerde: S, valueSerde: I }, data)).toEqual([
      { key: 'b', value: 2 },
      { key: 'd', value: 4 },
    ]);
    await driver?.close();
    expect(
      await run((s) => s.filterNot((_k, v) => v % 2 === 0), { keySerde: S, valueSerde: I }, data),
    ).toEqual([
      { key: 'a', value: 1 },
      { key: 'c', value: 3 },
    ]);
  });

  it('map changes key and value types', async () => {
    const out = await run(
      (s) => s.map((k, v) => ({ key: v * 10, value: `${k}!` })),
      { keySerde: I, valueSerde: S },
      data.slice(0, 2),
    );
    expect(out).toEqual([
      { key: 10, value: 'a!' },
      { key: 20, value: 'b!' },
    ]);
  });

  it('mapValues sees value and key', async () => {
    expect(
      await run((s) => s.mapValues((v, k) => `${k}=${v}`), { keySerde: S, valueSerde: S }, data.slice(0, 2)),
    ).toEqual([
      { key: 'a', value: 'a=1' },
      { key: 'b', value: 'b=2' },
    ]);
  });

  it('flatMap and flatMapValues emit zero or more records each', async () => {
    const flat = await run(
      (s) => s.flatMap((k, v) => Array.from({ length: v - 1 }, (_, i) => ({ key: `${k}${i}`, value: i }))),
      { keySerde: S, valueSerde: I },
      [
        ['a', 1],
        ['b', 3],
      ],
    );
    expect(flat).toEqual([
      { key: 'b0', value: 0 },
      { key: 'b1', value: 1 },
    ]);
    await driver?.close();
    const values = await run((s) => s.flatMapValues((v) => [v, -v]), { keySerde: S, valueSerde: I }, [
      ['x', 5],
    ]);
    expect(values).toEqual([
      { key: 'x', value: 5 },
      { key: 'x', value: -5 },
    ]);
  });

  it('selectKey, peek and foreach', async () => {
    const peeked: string[] = [];
    const seen: Array<[string, number]> = [];
    const out = await run(
      (s) => {
        s.foreach((k, v) => seen.push([k, v]));
        return s.selectKey((_k, v) => `k${v}`).peek((k, v) => peeked.push(`${k}:${v}`));
      },
      { keySerde: S, valueSerde: I },
      data.slice(0, 2),
    );
    expect(out).toEqual([
      { key: 'k1', value: 1 },
      { key: 'k2', value: 2 },
    ]);
    expect(peeked).toEqual(['k1:1', 'k2:2']);
    expect(seen).toEqual([
      ['a', 1],
      ['b', 2],
    ]);
  });

  it('split routes to the first matching branch, then the default branch', async () => {
    const builder = new StreamsBuilder();
    const branches = builder
      .stream('in', { keySerde: S, valueSerde: I })
      .split({ name: 'size-' })
      .branch((_k, v) => v < 0, { name: 'negative' })
      .branch((_k, v) => v < 10, { name: 'small', chain: (b) => b.mapValues((v) => v * 100) })
      .branch((_k, v) => v === 1000, { chain: (b) => b.to('exactly-1000', { keySerde: S, valueSerde: I }) })
      .defaultBranch({ name: 'large' });
    expect([...branches.keys()]).toEqual(['size-negative', 'size-small', 'size-large']);
    branches.get('size-negative')!.to('negative');
    branches.get('size-small')!.to('small', { valueSerde: I });
    branches.get('size-large')!.to('large');
    driver = new TopologyTestDriver(builder.build());
    const input = driver.createInputTopic('in', S, I);
    for (const [k, v] of [
      ['a', -1],
      ['b', 5],
      ['c', 1000],
      ['d', 50],
      ['e', 3],
    ] as const) {
      await input.pipeInput(k, v);
    }
    const read = (t: string) => driver!.createOutputTopic(t, S, I).readKeyValuesToList();
    expect(read('negative')).toEqual([{ key: 'a', value: -1 }]);
    expect(read('small')).toEqual([
      { key: 'b', value: 500 },
      { key: 'e', value: 300 },
    ]);
    expect(read('exactly-1000')).toEqual([{ key: 'c', value: 1000 }]);
    expect(read('large')).toEqual([{ key: 'd', value: 50 }]);
  });

  it('split without a default branch drops what matches no branch', async () => {
    const builder = new StreamsBuilder();
    const branches = builder
      .stream('in', { keySerde: S, valueSerde: I })
      .split()
      .branch((_k, v) => v > 2)
      .noDefaultBranch();
    expect([...branches.keys()]).toEqual(['KSTREAM-BRANCH-0000000001-1']);
    branches.get('KSTREAM-BRANCH-0000000001-1')!.to('out');
    driver = new TopologyTestDriver(builder.build());
    const input = driver.createInputTopic('in', S, I);
    for (const [k, v] of data) await input.pipeInput(k, v);
    expect(driver.createOutputTopic('out', S, I).readValuesToList()).toEqual([3, 4]);
  });

  it('merge interleaves two streams in processing order', async () => {
    const builder = new StreamsBuilder();
    const left = builder.stream('left', { keySerde: S, valueSerde: I });
    const right = builder.stream('right', { keySerde: S, valueSerde: I }).mapValues((v) => v + 100);
    left.merge(right).to('out', { keySerde: S, valueSerde: I });
    driver = new TopologyTestDriver(builder.build());
    const l = driver.createInputTopic('left', S, I);
    const r = driver.createInputTopic('right', S, I);
    await l.pipeInput('x', 1);
    await r.pipeInput('y', 2);
    await l.pipeInput('z', 3);
    expect(driver.createOutputTopic('out', S, I).readKeyValuesToList()).toEqual([
      { key: 'x', value: 1 },
      { key: 'y', value: 102 },
      { key: 'z', value: 3 },
    ]);
  });

  it('to() with a topic name extractor, keeping timestamps and headers', async () => {
    const builder = new StreamsBuilder();
    builder
      .stream('in', { keySerde: S, valueSerde: I })
      .to((key, value, ctx) => `${key}-${value % 2 === 0 ? 'even' : 'odd'}-${ctx.topic}`, {
        keySerde: S,
        valueSerde: I,
      });
    driver = new TopologyTestDriver(builder.build());
    const input = driver.createInputTopic('in', S, I);
    await input.pipeInput('n', 1, 111, { trace: 'abc' });
    await input.pipeInput('n', 2, 222);
    const odd = driver.createOutputTopic('n-odd-in', S, I).readRecordsToList();
    expect(odd).toEqual([
      { topic: 'n-odd-in', key: 'n', value: 1, timestamp: 111, headers: { trace: 'abc' } },
    ]);
    expect(
      driver
        .createOutputTopic('n-even-in', S, I)
        .readRecordsToList()
        .map((r) => r.timestamp),
    ).toEqual([222]);
  });

  it('repartition() goes through <app>-<name>-repartition into a second sub-topology', async () => {
    const builder = new StreamsBuilder();
    builder
      .stream('in', { keySerde: S, valueSerde: I })
      .selectKey((_k, v): string => (v % 2 === 0 ? 'even' : 'odd'))
      .repartition({ name: 'parity', keySerde: S, valueSerde: I })
      .to('out');
    const topology = builder.build();
    expect(topology.subtopologies('app').map((s) => s.sourceTopics)).toEqual([
      ['in'],
      ['app-parity-repartition'],
    ]);
    driver = new TopologyTestDriver(topology, { applicationId: 'app' });
    const input = driver.createInputTopic('in', S, I);
    for (const [k, v] of data.slice(0, 3)) await input.pipeInput(k, v);
    expect(driver.createOutputTopic('out', S, I).readKeyValuesToList()).toEqual([
      { key: 'odd', value: 1 },
      { key: 'even', value: 2 },
      { key: 'odd', value: 3 },
    ]);
    expect(driver.createOutputTopic('app-parity-repartition', S, I).getQueueSize()).toBe(3);
  });

  it('process() runs a Processor API processor with a store; a grouping after it repartitions', async () => {
    class Dedupe {
      private ctx!: ProcessorContext<string, string>;
      private seen!: KeyValueStore<string, number>;
      init(ctx: ProcessorContext<string, string>) {
        this.ctx = ctx;
        this.seen = ctx.getStateStore<KeyValueStore<string, number>>('seen');
      }
      process(record: Record<string, number>) {
        const key = `${record.key}:${record.value}`;
        if (this.seen.get(key) !== undefined) return;
        this.seen.put(key, record.timestamp);
        this.ctx.forward(new Record(record.key, `${record.value}`, record.timestamp, record.headers));
      }
    }
    const builder = new StreamsBuilder();
    builder.addStateStore(Stores.keyValueStoreBuilder('seen', S, Serdes.Long()));
    const processed = builder
      .stream('in', { keySerde: S, valueSerde: I })
      .process(() => new Dedupe(), 'seen', { name: 'dedupe' });
    processed.to('out', { keySerde: S, valueSerde: S });
    processed.groupByKey({ keySerde: S, valueSerde: S }).count({ storeName: 'per-key' });
    const topology = builder.build();
    expect(topology.describe().subtopologies).toHaveLength(2);
    driver = new TopologyTestDriver(topology);
    const input = driver.createInputTopic('in', S, I);
    for (const [k, v] of [
      ['a', 1],
      ['a', 1],
      ['a', 2],
    ] as const) {
      await input.pipeInput(k, v);
    }
    expect(driver.createOutputTopic('out', S, S).readKeyValuesToList()).toEqual([
      { key: 'a', value: '1' },
      { key: 'a', value: '2' },
    ]);
    expect(driver.getKeyValueStore<string, number>('per-key').get('a')).toBe(2);
  });

  it('processValues() keeps keys, so a grouping after it does not repartition', async () => {
    class Label {
      private ctx!: FixedKeyProcessorContext<string, string>;
      init(ctx: FixedKeyProcessorContext<string, string>) {
        this.ctx = ctx;
      }
      process(record: FixedKeyRecord<string, number>) {
        this.ctx.forward(record.withValue(`#${record.value}`));
      }
    }
    const builder = new StreamsBuilder();
    const labelled = builder.stream('in', { keySerde: S, valueSerde: I }).processValues(() => new Label());
    labelled.to('out', { valueSerde: S });
    labelled.groupByKey({ valueSerde: S }).count({ storeName: 'n' });
    const topology = builder.build();
    expect(topology.describe().subtopologies).toHaveLength(1);
    driver = new TopologyTestDriver(topology);
    await driver.createInputTopic('in', S, I).pipeInput('k', 7);
    expect(driver.createOutputTopic('out', S, S).readKeyValuesToList()).toEqual([{ key: 'k', value: '#7' }]);
    expect(driver.getKeyValueStore<string, number>('n').get('k')).toBe(1);
  });
});

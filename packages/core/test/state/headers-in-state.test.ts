// Headers in state (Kafka Streams 4.3-4.4, KIP-1271/1285). The Processor API store keeps each
// value's headers through its changelog and restore; `dslStoreFormat: 'HEADERS'` puts the DSL's
// key-value stores (aggregations, tables) in the same format, storing empty headers as Kafka
// Streams 4.4's operators do, with output and changelog records as in the default format. The DSL
// cases run over LevelDB and in-memory bytes stores. scripts/differential/ compares the same with
// Kafka Streams itself.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  decodeHeaders,
  type KeyValueBytesStore,
  type KeyValueStore,
  StoreFormatError,
  splitValueTimestampHeaders,
} from '@kstreams/state-store';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveStreamsConfig } from '../../src/config/streams-config.ts';
import { ConfigError } from '../../src/errors.ts';
import { StreamsBuilder } from '../../src/kstream/index.ts';
import { ProcessorStateManager } from '../../src/processor/internals/processor-state-manager.ts';
import type { ProcessorContext } from '../../src/processor/processor.ts';
import type { Record } from '../../src/processor/record.ts';
import { Topology } from '../../src/processor/topology.ts';
import { Serdes } from '../../src/serdes/serdes.ts';
import {
  type BytesStoreFactory,
  inMemoryBytesStores,
  levelBytesStores,
} from '../../src/state/bytes-stores.ts';
import { type DslStoreFormat, Stores, type ValueTimestampHeaders } from '../../src/state/index.ts';
import { TopologyTestDriver } from '../../src/testing/index.ts';

const S = Serdes.String();
const L = Serdes.Long();
const TRACE = { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' };

let dir: string;
let driver: TopologyTestDriver | undefined;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kstreams-headers-'));
});
afterEach(async () => {
  await driver?.close();
  driver = undefined;
  await rm(dir, { recursive: true, force: true });
});

/** Keeps each record with its headers, as a Processor API app that wants its trace context later. */
class KeepWithHeaders {
  private store!: KeyValueStore<string, ValueTimestampHeaders<string>>;
  init(ctx: ProcessorContext<string, string>): void {
    this.store = ctx.getStateStore('kept');
  }
  process(record: Record<string, string | null>): void {
    if (record.value === null) this.store.delete(record.key);
    else
      this.store.put(record.key, {
        value: record.value,
        timestamp: record.timestamp,
        headers: record.headers,
      });
  }
}

describe('Stores.timestampedKeyValueStoreWithHeadersBuilder (KIP-1271)', () => {
  it('keeps value, timestamp and headers, logs them as the record and restores the same bytes', async () => {
    const bytes = new Map<string, KeyValueBytesStore>();
    const manager = new ProcessorStateManager({
      taskId: '0_0',
      applicationId: 'app',
      partition: 0,
      storeFactory: (name, _task, builder) => {
        const store = builder.bytesStore(levelBytesStores(dir));
        bytes.set(name, store);
        return store;
      },
      onCommitRequested: () => {},
    });
    manager.register(Stores.timestampedKeyValueStoreWithHeadersBuilder('kept', S, S));
    await manager.initialize();
    const store = manager.store('kept') as KeyValueStore<string, ValueTimestampHeaders<string>>;
    store.put('a', {
      value: 'hello',
      timestamp: 1_700_000_000_000,
      headers: { ...TRACE, n: Buffer.from([1]) },
    });
    store.put('b', { value: 'bare', timestamp: 7, headers: {} });
    expect(store.get('a')).toEqual({
      value: 'hello',
      timestamp: 1_700_000_000_000,
      headers: { traceparent: Buffer.from(TRACE.traceparent), n: Buffer.from([1]) },
    });

    // Kafka Streams' changelog: the plain value, the stored timestamp and headers as the record's.
    const [a, b] = manager.changelogRecords();
    expect(a).toMatchObject({
      key: Buffer.from('a'),
      value: Buffer.from('hello'),
      timestamp: 1_700_000_000_000,
    });
    expect(a!.headers).toEqual({ traceparent: Buffer.from(TRACE.traceparent), n: Buffer.from([1]) });
    expect(b).toMatchObject({ value: Buffer.from('bare'), timestamp: 7 });
    expect(b!.headers).toBeUndefined();

    // A restore of those records rebuilds the stored bytes, headers in front.
    await manager.commit([]);
    const restore = manager.restoreConverter('kept');
    const restoredA = restore({
      key: a!.key,
      value: a!.value,
      timestamp: a!.timestamp!,
      headers: a!.headers!,
    });
    expect(restoredA.value).toEqual(bytes.get('kept')!.get(Buffer.from('a')));
    const restoredB = restore({ key: b!.key, value: b!.value, timestamp: 7 });
    expect(restoredB.value).toEqual(bytes.get('kept')!.get(Buffer.from('b')));
    // Fetched headers may repeat a key (kafkajs gives an array): all of them are kept, in order.
    const repeated = restore({
      key: a!.key,
      value: a!.value,
      timestamp: 1,
      headers: { h: [Buffer.from('1'), Buffer.from('2')] },
    });
    expect(decodeHeaders(splitValueTimestampHeaders(repeated.value!).headers)).toEqual([
      ['h', Buffer.from('1')],
      ['h', Buffer.from('2')],
    ]);
    expect(restore({ key: a!.key, value: null, timestamp: 1 }).value).toBeNull();
    await manager.close();
  });

  it('carries a record’s trace context through the store to the changelog in the test driver', async () => {
    const topology = new Topology()
      .addSource('src', 'in', { keySerde: S, valueSerde: S })
      .addProcessor('keep', () => new KeepWithHeaders(), 'src')
      .addStateStore(Stores.timestampedKeyValueStoreWithHeadersBuilder('kept', S, S), 'keep');
    driver = new TopologyTestDriver(topology, { applicationId: 'app' });
    await driver.createInputTopic('in', S, S).pipeInput('k', 'v', 42, TRACE);
    const [logged] = driver.createOutputTopic('app-kept-changelog', S, S).readRecordsToList();
    expect(logged).toMatchObject({ key: 'k', value: 'v', timestamp: 42 });
    expect(logged!.headers).toEqual({ traceparent: Buffer.from(TRACE.traceparent) });
  });
});

function aggregations(): Topology {
  const builder = new StreamsBuilder();
  const grouped = builder.stream<string, string>('in', { keySerde: S, valueSerde: S }).groupByKey();
  grouped.count({ storeName: 'counts' }).toStream().to('counts-out', { valueSerde: L });
  grouped
    .reduce((a, b) => `${a}+${b}`, { storeName: 'joined' })
    .toStream()
    .to('reduced-out');
  grouped
    .aggregate(
      () => 0,
      (_k, v, n) => n + v.length,
      { storeName: 'lengths', valueSerde: L },
    )
    .toStream()
    .to('lengths-out', { valueSerde: L });
  builder.table<string, string>('table-in', { keySerde: S, valueSerde: S }, { storeName: 'table' });
  return builder.build();
}

/** Runs the aggregations in one format; the outputs, the changelogs and the stores' bytes. */
async function runAggregations(format: DslStoreFormat, factory: BytesStoreFactory) {
  const bytes = new Map<string, KeyValueBytesStore>();
  driver = new TopologyTestDriver(aggregations(), {
    applicationId: 'app',
    dslStoreFormat: format,
    statestoreCacheMaxBytes: 0,
    storeFactory: (name, _task, builder) => {
      const store = builder.bytesStore(factory);
      bytes.set(name, store);
      return store;
    },
  });
  const input = driver.createInputTopic('in', S, S);
  await input.pipeInput('a', 'x', 10, TRACE);
  await input.pipeInput('a', 'yy', 5, { other: 'h' });
  await input.pipeInput('b', 'zzz', 20);
  await driver.createInputTopic('table-in', S, S).pipeInput('t', 'row', 30, TRACE);
  const read = (topic: string, values: typeof S | typeof L) =>
    driver!
      .createOutputTopic<string, unknown>(topic, S, values as never)
      .readRecordsToList()
      .map((r) => ({ key: r.key, value: r.value, timestamp: r.timestamp, headers: r.headers }));
  const outputs = {
    counts: read('counts-out', L),
    reduced: read('reduced-out', S),
    lengths: read('lengths-out', L),
    changelogs: ['counts', 'joined', 'lengths', 'table'].map((s) =>
      read(`app-${s}-changelog`, Serdes.Bytes() as never),
    ),
  };
  const stores = {
    count: driver.getKeyValueStore<string, number>('counts').get('a'),
    timestamped: driver.getTimestampedKeyValueStore<string, string>('joined').get('a'),
    table: driver.getKeyValueStore<string, string>('table').get('t'),
  };
  const raw = (store: string, key: string) => bytes.get(store)!.get(Buffer.from(key))!;
  return { outputs, stores, raw: { count: raw('counts', 'a'), table: raw('table', 't') } };
}

describe("dslStoreFormat 'HEADERS' (KIP-1285)", () => {
  const factories: Array<[string, () => BytesStoreFactory]> = [
    ['LevelDB', () => levelBytesStores(dir)],
    ['in-memory', () => inMemoryBytesStores],
  ];

  it.each(factories)(
    'count, reduce, aggregate and a table: same records as the default (%s)',
    async (_k, factory) => {
      const plain = await runAggregations('DEFAULT', factory());
      await driver!.close();
      driver = undefined;
      await rm(dir, { recursive: true, force: true });
      const withHeaders = await runAggregations('HEADERS', factory());
      // Outputs carry the headers of the record that updated the aggregate, as without the format;
      // the changelogs hold the same values and timestamps and no headers (the stored ones are empty).
      expect(withHeaders.outputs).toEqual(plain.outputs);
      expect(withHeaders.outputs.counts[0]!.headers).toEqual(TRACE);
      expect(withHeaders.outputs.changelogs.flat().every((r) => Object.keys(r.headers).length === 0)).toBe(
        true,
      );
      expect(withHeaders.stores).toEqual({
        count: 2,
        timestamped: { value: 'x+yy', timestamp: 10 },
        table: 'row',
      });
      expect(withHeaders.stores).toEqual(plain.stores);

      // The stored bytes: empty headers (varint 0), the timestamp, the value.
      expect(withHeaders.raw.count.toString('hex')).toBe(`00${'000000000000000a'}${'0000000000000002'}`);
      expect(plain.raw.count.toString('hex')).toBe(`${'000000000000000a'}${'0000000000000002'}`);
      const table = splitValueTimestampHeaders(withHeaders.raw.table);
      expect([table.headers.length, table.timestamp, table.value.toString()]).toEqual([0, 30, 'row']);
    },
  );

  it('refuses LevelDB state written in the other format, instead of misreading it', async () => {
    await runAggregations('DEFAULT', levelBytesStores(dir));
    await driver!.close();
    driver = new TopologyTestDriver(aggregations(), {
      dslStoreFormat: 'HEADERS',
      storeFactory: (_name, _task, builder) => builder.bytesStore(levelBytesStores(dir)),
    });
    await expect(driver.createInputTopic('in', S, S).pipeInput('a', 'x', 1)).rejects.toThrow(
      StoreFormatError,
    );
    // The driver never started: its close reports the same failure.
    await expect(driver.close()).rejects.toThrow(StoreFormatError);
    driver = undefined;
  });

  it('takes only the two formats, with the key named in the error', () => {
    const base = { applicationId: 'a', brokers: ['localhost:9092'] };
    expect(resolveStreamsConfig({ ...base, dslStoreFormat: 'HEADERS' }).dslStoreFormat).toBe('HEADERS');
    expect(resolveStreamsConfig(base).dslStoreFormat).toBe('DEFAULT');
    expect(() => resolveStreamsConfig({ ...base, dslStoreFormat: 'headerz' as never })).toThrow(
      /dslStoreFormat/,
    );
    expect(() => new TopologyTestDriver(aggregations(), { dslStoreFormat: 'x' as never })).toThrow(
      ConfigError,
    );
  });

  it('rebuilds only the DSL key-value stores, and back when a later app asks for DEFAULT', () => {
    const topology = aggregations();
    topology.internalBuilder.applyDslStoreFormat('HEADERS');
    expect(topology.internalBuilder.storeBuilder('counts')?.headers).toBe(true);
    topology.internalBuilder.applyDslStoreFormat('DEFAULT');
    expect(topology.internalBuilder.storeBuilder('counts')?.headers).toBe(false);
    const papi = new Topology()
      .addSource('src', 'in')
      .addProcessor('keep', () => new KeepWithHeaders(), 'src')
      .addStateStore(Stores.keyValueStoreBuilder('plain', S, S), 'keep');
    papi.internalBuilder.applyDslStoreFormat('HEADERS');
    expect(papi.internalBuilder.storeBuilder('plain')?.headers).toBeUndefined();
  });
});

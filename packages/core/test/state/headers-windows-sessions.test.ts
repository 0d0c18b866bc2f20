// Headers in state for window, session and stream-stream join stores (Kafka Streams 4.4,
// KIP-1285's later part). With `dslStoreFormat: 'HEADERS'` a windowed or sliding aggregation stores
// Kafka Streams' ValueTimestampHeaders bytes, a session aggregation its AggregationWithHeaders
// bytes (both with empty headers), and a stream-stream join each record's value, timestamp and
// headers; outputs stay as in the default format. Over LevelDB, as a running app holds them.
// scripts/differential/ compares the same with Kafka Streams itself.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  decodeHeaders,
  type KeyValueBytesStore,
  StoreFormatError,
  splitAggregationWithHeaders,
  splitValueTimestampHeaders,
  type TypedSessionStore,
} from '@kstreams/state-store';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  JoinWindows,
  SessionWindows,
  SlidingWindows,
  StreamsBuilder,
  TimeWindows,
} from '../../src/kstream/index.ts';
import { ProcessorStateManager } from '../../src/processor/internals/processor-state-manager.ts';
import { Serdes } from '../../src/serdes/serdes.ts';
import { levelBytesStores } from '../../src/state/bytes-stores.ts';
import {
  type DslStoreFormat,
  type KeyValueStore,
  Stores,
  type ValueTimestampHeaders,
} from '../../src/state/index.ts';
import { dslSessionStoreBuilder } from '../../src/state/session-store-builder.ts';
import { TopologyTestDriver } from '../../src/testing/index.ts';
import type { Windowed } from '../../src/windowed.ts';

const S = Serdes.String();
const L = Serdes.Long();
const TRACE = { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' };
const windowName = (key: Windowed<string>) => `${key.key}@${key.window.start}`;

let dir: string;
let driver: TopologyTestDriver | undefined;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kstreams-headers-windows-'));
});
afterEach(async () => {
  await driver?.close();
  driver = undefined;
  await rm(dir, { recursive: true, force: true });
});

function windowsAndJoin() {
  const builder = new StreamsBuilder();
  const grouped = builder.stream<string, string>('in', { keySerde: S, valueSerde: S }).groupByKey();
  const counts = { keySerde: S, valueSerde: L };
  grouped
    .windowedBy(TimeWindows.ofSizeAndGrace(10, 5))
    .count({ storeName: 'win' })
    .toStream()
    .selectKey(windowName)
    .to('win-out', counts);
  grouped
    .windowedBy(SlidingWindows.ofTimeDifferenceAndGrace(5, 5))
    .count({ storeName: 'slide' })
    .toStream()
    .selectKey(windowName)
    .to('slide-out', counts);
  grouped
    .windowedBy(SessionWindows.ofInactivityGapAndGrace(5, 5))
    .reduce((a, v) => `${a}+${v}`, { storeName: 'sessions', valueSerde: S })
    .toStream()
    .selectKey(windowName)
    .to('sessions-out', { keySerde: S, valueSerde: S });
  builder
    .stream<string, string>('left', { keySerde: S, valueSerde: S })
    .join(
      builder.stream<string, string>('right', { keySerde: S, valueSerde: S }),
      (a, b) => `${a}+${b}`,
      JoinWindows.ofTimeDifferenceAndGrace(10, 5),
      { storeName: 'pair', keySerde: S, valueSerde: S, otherValueSerde: S },
    )
    .to('joined', { keySerde: S, valueSerde: S });
  return builder.build();
}

/** Runs the topology in one format over LevelDB; its outputs and the stores' first stored value. */
async function run(format: DslStoreFormat) {
  const bytes = new Map<string, KeyValueBytesStore>();
  driver = new TopologyTestDriver(windowsAndJoin(), {
    applicationId: 'app',
    dslStoreFormat: format,
    statestoreCacheMaxBytes: 0,
    storeFactory: (name, _task, builder) => {
      const store = builder.bytesStore(levelBytesStores(join(dir, format)));
      bytes.set(name, store);
      return store;
    },
  });
  const input = driver.createInputTopic('in', S, S);
  await input.pipeInput('a', 'x', 1, TRACE);
  await input.pipeInput('a', 'y', 4, { tenant: 't1' });
  await driver.createInputTopic('left', S, S).pipeInput('k', 'L', 10, TRACE);
  await driver.createInputTopic('right', S, S).pipeInput('k', 'R', 12, { tenant: 't2' });
  const read = (topic: string, values: typeof S | typeof L) =>
    driver!
      .createOutputTopic<string, unknown>(topic, S, values as never)
      .readRecordsToList()
      .map((r) => ({ key: r.key, value: r.value, timestamp: r.timestamp, headers: r.headers }));
  const outputs = {
    win: read('win-out', L),
    slide: read('slide-out', L),
    sessions: read('sessions-out', S),
    joined: read('joined', S),
  };
  const first = async (store: string) => {
    for await (const entry of bytes.get(store)!.all()) return entry.value;
    throw new Error(`store ${store} is empty`);
  };
  const raw = {
    win: await first('win'),
    session: await first('sessions'),
    join: await first('pair-this-join-store'),
  };
  const logged = driver
    .createOutputTopic('app-pair-this-join-store-changelog', S, S)
    .readRecordsToList()
    .map((r) => ({ value: r.value, timestamp: r.timestamp, headers: r.headers }));
  await driver.close();
  driver = undefined;
  return { outputs, raw, logged };
}

describe("dslStoreFormat 'HEADERS' for window, session and join stores (KIP-1285)", () => {
  it('stores Kafka Streams 4.4 bytes; outputs as in the default format', async () => {
    const plain = await run('DEFAULT');
    const withHeaders = await run('HEADERS');
    expect(withHeaders.outputs).toEqual(plain.outputs);
    expect(withHeaders.outputs.joined).toEqual([
      { key: 'k', value: 'L+R', timestamp: 12, headers: { tenant: 't2' } },
    ]);

    // Window [0, 10) of 'a': empty headers (varint 0), the latest timestamp (4), the count (2).
    expect(withHeaders.raw.win.toString('hex')).toBe(`00${'0000000000000004'}${'0000000000000002'}`);
    expect(plain.raw.win.toString('hex')).toBe(`${'0000000000000004'}${'0000000000000002'}`);
    // A session: empty headers, then the aggregate; no timestamp.
    const session = splitAggregationWithHeaders(withHeaders.raw.session);
    expect([session.headers.length, session.aggregation.toString()]).toEqual([0, 'x+y']);
    expect(plain.raw.session.toString()).toBe('x+y');
    // A join store keeps the record's headers and timestamp beside its value.
    const joined = splitValueTimestampHeaders(withHeaders.raw.join);
    expect(decodeHeaders(joined.headers)).toEqual([['traceparent', Buffer.from(TRACE.traceparent)]]);
    expect([joined.timestamp, joined.value.toString()]).toEqual([10, 'L']);
    expect(plain.raw.join.toString()).toBe('L');

    // Its changelog: the plain value, the record's timestamp and headers (Kafka Streams 4.4's
    // ChangeLoggingTimestampedWindowBytesStoreWithHeaders); the default format logs no headers.
    expect(withHeaders.logged).toEqual([
      { value: 'L', timestamp: 10, headers: { traceparent: Buffer.from(TRACE.traceparent) } },
    ]);
    expect(plain.logged.map((r) => [r.value, r.headers])).toEqual([['L', {}]]);
  });

  it('refuses a window store written in the default format, instead of misreading it', async () => {
    await run('DEFAULT');
    driver = new TopologyTestDriver(windowsAndJoin(), {
      dslStoreFormat: 'HEADERS',
      storeFactory: (_name, _task, builder) => builder.bytesStore(levelBytesStores(join(dir, 'DEFAULT'))),
    });
    await expect(driver.createInputTopic('in', S, S).pipeInput('a', 'x', 2)).rejects.toThrow(
      StoreFormatError,
    );
    await expect(driver.close()).rejects.toThrow(StoreFormatError);
    driver = undefined;
  });

  it("a session store's changelog holds the plain aggregate and restores the headers in front", async () => {
    const manager = new ProcessorStateManager({
      taskId: '0_0',
      applicationId: 'app',
      partition: 0,
      storeFactory: (_name, _task, builder) => builder.bytesStore(levelBytesStores(dir)),
      onCommitRequested: () => {},
    });
    const builder = dslSessionStoreBuilder('s', { retentionMs: 100 }, S, S).withDslStoreFormat?.('HEADERS');
    expect(builder?.headers).toBe(true);
    manager.register(builder!);
    await manager.initialize();
    const store = manager.store('s') as TypedSessionStore<string, string>;
    store.put({ key: 'k', start: 1, end: 3 }, 'agg');
    const [logged] = manager.changelogRecords();
    expect(logged!.value).toEqual(Buffer.from('agg'));
    expect(logged!.headers).toBeUndefined();
    const restore = manager.restoreConverter('s');
    const restored = restore({
      key: Buffer.from('k'),
      value: Buffer.from('agg'),
      timestamp: 5,
      headers: TRACE,
    });
    const parts = splitAggregationWithHeaders(restored.value!);
    expect(decodeHeaders(parts.headers)).toEqual([['traceparent', Buffer.from(TRACE.traceparent)]]);
    expect(parts.aggregation.toString()).toBe('agg');
    expect(restore({ key: Buffer.from('k'), value: null, timestamp: 5 }).value).toBeNull();
    await manager.close();
  });

  it('switches only the DSL window, session and join stores, and back for DEFAULT', () => {
    const topology = windowsAndJoin();
    const dsl = ['win', 'slide', 'sessions', 'pair-this-join-store', 'pair-other-join-store'];
    topology.internalBuilder.applyDslStoreFormat('HEADERS');
    expect(dsl.map((s) => topology.internalBuilder.storeBuilder(s)?.headers)).toEqual(dsl.map(() => true));
    topology.internalBuilder.applyDslStoreFormat('DEFAULT');
    expect(dsl.map((s) => topology.internalBuilder.storeBuilder(s)?.headers)).toEqual(dsl.map(() => false));
    const papi = [
      Stores.windowStoreBuilder('w', { retentionMs: 10, windowSizeMs: 5 }, S, S),
      Stores.sessionStoreBuilder('s', { retentionMs: 10 }, S, S),
    ];
    for (const builder of papi) expect(builder.withDslStoreFormat?.('HEADERS') ?? builder).toBe(builder);
  });
});

describe("a headers-aware store's changelog tombstone (Kafka Streams 4.4's ChangeLogging*WithHeaders)", () => {
  it('has the deleting record’s timestamp and headers; a later put or a commit forgets it', async () => {
    let current:
      | { topic: string; partition: number; offset: number; timestamp?: number; headers?: object }
      | undefined = { topic: 'in', partition: 0, offset: 7, timestamp: 42, headers: { tenant: 't4' } };
    const manager = new ProcessorStateManager({
      taskId: '0_0',
      applicationId: 'app',
      partition: 0,
      storeFactory: (_name, _task, builder) => builder.bytesStore(levelBytesStores(dir)),
      onCommitRequested: () => {},
      currentRecord: () => current as never,
    });
    manager.register(Stores.timestampedKeyValueStoreWithHeadersBuilder('kept', S, S));
    manager.register(Stores.keyValueStoreBuilder('plain', S, S));
    await manager.initialize();
    const kept = manager.store('kept') as KeyValueStore<string, ValueTimestampHeaders<string>>;
    const plain = manager.store('plain') as KeyValueStore<string, string>;
    kept.put('gone', { value: 'v', timestamp: 1, headers: {} });
    kept.delete('gone');
    kept.delete('back');
    kept.put('back', { value: 'again', timestamp: 2, headers: {} });
    plain.delete('p');
    const changes = manager.changelogRecords();
    expect(changes.find((c) => c.key.toString() === 'gone')).toMatchObject({
      value: null,
      timestamp: 42,
      headers: { tenant: Buffer.from('t4') },
    });
    expect(changes.find((c) => c.key.toString() === 'back')).toMatchObject({ value: Buffer.from('again') });
    // A plain store's tombstone keeps the commit's time, as before.
    const p = changes.find((c) => c.key.toString() === 'p');
    expect([p?.value, p?.timestamp, p?.headers]).toEqual([null, undefined, undefined]);

    // After the commit, a delete without a record (a punctuator's) has neither.
    await manager.commit([]);
    current = undefined;
    kept.delete('back');
    const [punctuated] = manager.changelogRecords();
    expect([punctuated?.key.toString(), punctuated?.timestamp, punctuated?.headers]).toEqual([
      'back',
      undefined,
      undefined,
    ]);
    await manager.close();
  });
});

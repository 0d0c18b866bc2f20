// IQv2 without a broker: Position and PositionBound, a task store's position following its
// committed writes, and queryLocalStores answering typed queries per partition.
import { InMemoryKeyValueStore, type VersionedRecord } from '@kstreams/state-store';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { ResolvedConfig } from '../../src/config/streams-config.ts';
import type { StreamsAdmin } from '../../src/kafka/admin.ts';
import { StreamTask, type StreamTaskOptions } from '../../src/processor/internals/stream-task.ts';
import type { ProcessorContext } from '../../src/processor/processor.ts';
import type { Record } from '../../src/processor/record.ts';
import { Topology } from '../../src/processor/topology.ts';
import {
  isPermitted,
  KeyQuery,
  MultiVersionedKeyQuery,
  Position,
  PositionBound,
  RangeQuery,
  StateQueryRequest,
  TimestampedKeyQuery,
  VersionedKeyQuery,
  WindowKeyQuery,
} from '../../src/query/index.ts';
import type { QueryDeps } from '../../src/runtime/interactive-queries.ts';
import { queryLocalStores } from '../../src/runtime/state-query.ts';
import type { TaskRuntime } from '../../src/runtime/task-runtime.ts';
import { Serdes } from '../../src/serdes/serdes.ts';
import { type KeyValueStore, Stores, type VersionedKeyValueStore } from '../../src/state/index.ts';

const silent = pino({ level: 'silent' });

describe('Position', () => {
  it('merges by the larger offset per component and round-trips through JSON', () => {
    const a = Position.emptyPosition().withComponent('t', 0, 5).withComponent('t', 1, 9);
    const b = Position.emptyPosition().withComponent('t', 0, 7).withComponent('u', 2, 1);
    const merged = a.merge(b);
    expect(merged.toJSON()).toEqual({ t: { 0: 7, 1: 9 }, u: { 2: 1 } });
    expect(a.toJSON()).toEqual({ t: { 0: 5, 1: 9 } });
    expect(Position.fromJson(JSON.parse(JSON.stringify(merged))).toJSON()).toEqual(merged.toJSON());
    expect([...merged.getPartitionPositions('t')]).toEqual([
      [0, 7],
      [1, 9],
    ]);
  });

  it('rejects a malformed position with what to change', () => {
    expect(() => Position.fromJson([1])).toThrow(/\{ topic: \{ partition: offset \} \}/);
    expect(() => Position.fromJson({ t: { x: 1 } })).toThrow(/partition must be a whole number/);
    expect(() => Position.fromJson({ t: { 0: -1 } })).toThrow(/offset must be a whole number >= 0/);
  });

  it('isPermitted checks only the partition asked, and needs each of its components reached', () => {
    const position = Position.emptyPosition().withComponent('in', 0, 10);
    const at = (p: Position) => PositionBound.at(p);
    expect(isPermitted(position, PositionBound.unbounded(), 0)).toBe(true);
    expect(isPermitted(position, at(Position.emptyPosition().withComponent('in', 0, 10)), 0)).toBe(true);
    expect(isPermitted(position, at(Position.emptyPosition().withComponent('in', 0, 11)), 0)).toBe(false);
    // Another partition's bound does not concern partition 0.
    expect(isPermitted(position, at(Position.emptyPosition().withComponent('in', 1, 99)), 0)).toBe(true);
    // A topic the store has never seen for this partition: not reached.
    expect(isPermitted(position, at(Position.emptyPosition().withComponent('other', 0, 0)), 0)).toBe(false);
  });
});

/** Writes `key -> value` unless the value is 'skip'; into a versioned store with the record's timestamp. */
class Writer {
  private kv!: KeyValueStore<string, string>;
  private versioned!: VersionedKeyValueStore<string, string>;
  init(ctx: ProcessorContext<string, string>): void {
    this.kv = ctx.getStateStore('kv');
    this.versioned = ctx.getStateStore('prices');
  }
  process(record: Record<string, string>): void {
    if (record.value === 'skip') return;
    this.kv.put(record.key, record.value);
    this.versioned.put(record.key, record.value, record.timestamp);
  }
}

function topology(): Topology {
  return new Topology()
    .addSource('src', 'in', { keySerde: Serdes.String(), valueSerde: Serdes.String() })
    .addProcessor('write', () => new Writer(), 'src')
    .addStateStore(Stores.keyValueStoreBuilder('kv', Serdes.String(), Serdes.String()), 'write')
    .addStateStore(
      Stores.versionedKeyValueStoreBuilder(
        Stores.persistentVersionedKeyValueStore('prices', 60_000),
        Serdes.String(),
        Serdes.String(),
      ),
      'write',
    );
}

function record(offset: number, key: string, value: string, timestamp = offset * 1000) {
  return { topic: 'in', partition: 2, offset, key: Buffer.from(key), value: Buffer.from(value), timestamp };
}

async function newTask(committed: Array<{ topic: string; partition: number; offset: number }> = []) {
  const options: StreamTaskOptions = {
    id: { subtopology: 0, partition: 2 },
    applicationId: 'iq',
    topology: topology(),
    collector: { send: () => {} },
    storeFactory: (name) => new InMemoryKeyValueStore(name),
    logger: silent,
  };
  const task = new StreamTask(options);
  await task.initializeStores(committed);
  await task.initializeTopology();
  return task;
}

describe('store positions', () => {
  it('follow the records written, move at the commit, and drop a rollback', async () => {
    const task = await newTask();
    expect(task.committedState('kv').position.isEmpty()).toBe(true);
    task.process(record(10, 'a', '1'));
    task.process(record(11, 'b', 'skip'));
    // Not committed yet: queries read committed data, so the position stays.
    expect(task.committedState('kv').position.isEmpty()).toBe(true);
    await task.postCommit([]);
    // 11 wrote nothing: the last record written is 10 (Kafka Streams' position).
    expect(task.committedState('kv').position.toJSON()).toEqual({ in: { 2: 10 } });
    expect(task.committedState('prices').position.toJSON()).toEqual({ in: { 2: 10 } });
    task.process(record(12, 'a', '2'));
    task.rollback();
    await task.postCommit([]);
    expect(task.committedState('kv').position.toJSON()).toEqual({ in: { 2: 10 } });
    task.process(record(12, 'a', '2'));
    await task.postCommit([]);
    expect(task.committedState('kv').position.toJSON()).toEqual({ in: { 2: 12 } });
    await task.close();
  });

  it('start below the committed input offsets after a restart', async () => {
    const task = await newTask([{ topic: 'in', partition: 2, offset: 20 }]);
    expect(task.committedState('kv').position.toJSON()).toEqual({ in: { 2: 19 } });
    await task.close();
  });
});

function depsOf(tasks: StreamTask[]): QueryDeps {
  const topo = topology();
  return {
    config: { applicationId: 'iq' } as ResolvedConfig,
    topology: topo,
    admin: {} as StreamsAdmin,
    tasks: () => tasks.map((task) => ({ id: task.idString, task }) as unknown as TaskRuntime),
  };
}

async function collect<T>(it: AsyncIterableIterator<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const x of it) all.push(x);
  return all;
}

describe('queryLocalStores', () => {
  it('answers typed queries per partition, with positions and failure reasons', async () => {
    const task = await newTask();
    task.process(record(1, 'a', 'x'));
    task.process(record(2, 'b', 'y'));
    task.process(record(3, 'a', 'z'));
    await task.postCommit([]);
    task.process(record(4, 'c', 'uncommitted'));
    const deps = depsOf([task]);

    const key = await queryLocalStores(
      deps,
      StateQueryRequest.inStore('kv').withQuery(KeyQuery.withKey<string, string>('a')),
    );
    const only = key.getOnlyPartitionResult()!;
    expect(only.getResult()).toBe('z');
    expect(only.getPosition()?.toJSON()).toEqual({ in: { 2: 3 } });
    expect(key.getPosition().toJSON()).toEqual({ in: { 2: 3 } });

    const range = await queryLocalStores(
      deps,
      StateQueryRequest.inStore('kv').withQuery(
        RangeQuery.withNoBounds<string, string>().withDescendingKeys(),
      ),
    );
    // The uncommitted write of 'c' is not visible.
    expect(await collect(range.getPartitionResults().get(2)!.getResult())).toEqual([
      { key: 'b', value: 'y' },
      { key: 'a', value: 'z' },
    ]);

    const wrongKind = await queryLocalStores(
      deps,
      StateQueryRequest.inStore('kv').withQuery(WindowKeyQuery.withKeyAndWindowStartRange('a', 0, 10)),
    );
    const failed = wrongKind.getPartitionResults().get(2)!;
    expect(failed.getFailureReason()).toBe('UNKNOWN_QUERY_TYPE');
    expect(failed.getFailureMessage()).toMatch(/it takes KeyQuery, RangeQuery/);
    expect(() => failed.getResult()).toThrow(/UNKNOWN_QUERY_TYPE/);
    // A plain store has no timestamps.
    const ts = await queryLocalStores(
      deps,
      StateQueryRequest.inStore('kv').withQuery(TimestampedKeyQuery.withKey('a')),
    );
    expect(ts.getPartitionResults().get(2)!.getFailureReason()).toBe('UNKNOWN_QUERY_TYPE');

    const missing = await queryLocalStores(
      deps,
      StateQueryRequest.inStore('kv').withQuery(KeyQuery.withKey('a')).withPartitions([2, 5]),
    );
    expect(missing.getPartitionResults().get(5)!.getFailureReason()).toBe('NOT_PRESENT');
    expect(missing.getPartitionResults().get(2)!.isSuccess()).toBe(true);

    const traced = await queryLocalStores(
      deps,
      StateQueryRequest.inStore('kv').withQuery(KeyQuery.withKey('a')).enableExecutionInfo(),
    );
    expect(traced.getOnlyPartitionResult()!.getExecutionInfo().join('\n')).toMatch(
      /Partition 2 answered by task 0_2\nHandled in key-value store 'kv' in \d+ns/,
    );
    await expect(
      queryLocalStores(deps, StateQueryRequest.inStore('kv').withQuery(KeyQuery.withKey('a')), {
        timeoutMs: -1,
      }),
    ).rejects.toThrow(/timeoutMs must be a number of milliseconds >= 0/);
    await expect(
      queryLocalStores(deps, StateQueryRequest.inStore('nope').withQuery(KeyQuery.withKey('a'))),
    ).rejects.toThrow(/No state store named 'nope'.*kv, prices/);
    await task.close();
  });

  it('answers versioned queries: as of a time, and every version in a time range', async () => {
    const task = await newTask();
    task.process(record(1, 'p', 'v1', 1000));
    task.process(record(2, 'p', 'v2', 5000));
    task.process(record(3, 'p', 'v3', 9000));
    await task.postCommit([]);
    const deps = depsOf([task]);
    const asOf = await queryLocalStores(
      deps,
      StateQueryRequest.inStore('prices').withQuery(
        VersionedKeyQuery.withKey<string, string>('p').asOf(6000),
      ),
    );
    expect(asOf.getOnlyPartitionResult()!.getResult()).toEqual({
      value: 'v2',
      timestamp: 5000,
      validTo: 9000,
    });
    const latest = await queryLocalStores(
      deps,
      StateQueryRequest.inStore('prices').withQuery(VersionedKeyQuery.withKey<string, string>('p')),
    );
    expect(latest.getOnlyPartitionResult()!.getResult()?.value).toBe('v3');
    const multi = await queryLocalStores(
      deps,
      StateQueryRequest.inStore('prices').withQuery(
        MultiVersionedKeyQuery.withKey<string, string>('p').fromTime(4000).toTime(9500),
      ),
    );
    const versions: VersionedRecord<string>[] = await collect(multi.getOnlyPartitionResult()!.getResult());
    expect(versions.map((v) => [v.value, v.timestamp, v.validTo])).toEqual([
      ['v3', 9000, undefined],
      ['v2', 5000, 9000],
      ['v1', 1000, 5000],
    ]);
    const ascending = await queryLocalStores(
      deps,
      StateQueryRequest.inStore('prices').withQuery(
        MultiVersionedKeyQuery.withKey<string, string>('p')
          .fromTime(5000)
          .toTime(6000)
          .withAscendingTimestamps(),
      ),
    );
    expect((await collect(ascending.getOnlyPartitionResult()!.getResult())).map((v) => v.value)).toEqual([
      'v2',
    ]);
    // KeyQuery is not for versioned stores, as in Kafka Streams.
    const plain = await queryLocalStores(
      deps,
      StateQueryRequest.inStore('prices').withQuery(KeyQuery.withKey('p')),
    );
    expect(plain.getPartitionResults().get(2)!.getFailureReason()).toBe('UNKNOWN_QUERY_TYPE');
    await task.close();
  });

  it('answers NOT_UP_TO_BOUND at once, and waits up to the timeout for a commit to reach the bound', async () => {
    const task = await newTask();
    task.process(record(1, 'a', 'old'));
    await task.postCommit([]);
    const deps = depsOf([task]);
    const bound = PositionBound.at(Position.emptyPosition().withComponent('in', 2, 2));
    const request = StateQueryRequest.inStore('kv')
      .withQuery(KeyQuery.withKey<string, string>('a'))
      .withPositionBound(bound);

    const now = await queryLocalStores(deps, request);
    const behind = now.getPartitionResults().get(2)!;
    expect(behind.getFailureReason()).toBe('NOT_UP_TO_BOUND');
    expect(behind.getPosition()?.toJSON()).toEqual({ in: { 2: 1 } });

    const expired = await queryLocalStores(deps, request, { timeoutMs: 50 });
    expect(expired.getPartitionResults().get(2)!.getFailureMessage()).toMatch(/waited 50 ms/);

    task.process(record(2, 'a', 'new'));
    const waiting = queryLocalStores(deps, request, { timeoutMs: 5_000 });
    setTimeout(() => void task.postCommit([]), 30);
    const fresh = (await waiting).getOnlyPartitionResult()!;
    expect(fresh.getResult()).toBe('new');
    expect(fresh.getPosition()?.toJSON()).toEqual({ in: { 2: 2 } });
    await task.close();
  });
});

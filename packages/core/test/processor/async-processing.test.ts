import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemoryKeyValueStore } from '@kstreams/state-store';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AsyncTimeoutError, ConfigError, StreamsError } from '../../src/errors.ts';
import { StreamsBuilder } from '../../src/kstream/index.ts';
import type { AsyncCall, AsyncOptions } from '../../src/processor/async-processor.ts';
import { defaultExceptionHandlers } from '../../src/processor/exception-handlers.ts';
import type { OutputRecord } from '../../src/processor/internals/records.ts';
import { StreamTask, type StreamTaskOptions } from '../../src/processor/internals/stream-task.ts';
import { Serdes } from '../../src/serdes/serdes.ts';
import type { KeyValueStore } from '../../src/state/index.ts';
import { Stores } from '../../src/state/index.ts';
import { TopologyTestDriver } from '../../src/testing/index.ts';

const silent = pino({ level: 'silent' });
const continueOnError = { ...defaultExceptionHandlers, processing: () => 'continue' as const };
const str = { keySerde: Serdes.String(), valueSerde: Serdes.String() };

/** Calls that finish when the test says so, by value. */
class Calls {
  readonly started: string[] = [];
  readonly signals = new Map<string, AbortSignal>();
  private readonly pending = new Map<
    string,
    { resolve: (v: string) => void; reject: (e: unknown) => void }
  >();
  call = (value: string, signal: AbortSignal): Promise<string> => {
    this.started.push(value);
    this.signals.set(value, signal);
    return new Promise((resolve, reject) => this.pending.set(value, { resolve, reject }));
  };
  finish(value: string): void {
    this.pending.get(value)!.resolve(value.toUpperCase());
  }
  fail(value: string): void {
    this.pending.get(value)!.reject(new Error(`call for ${value} failed`));
  }
}

const tick = () => new Promise((r) => setTimeout(r, 0));

function topology(calls: Calls, options: AsyncOptions) {
  const builder = new StreamsBuilder();
  builder
    .stream('in', str)
    .mapValuesAsync((value: string, _key, call) => calls.call(value, call.signal), options)
    .to('out', str);
  return builder.build();
}

function input(offset: number, key: string, value: string) {
  return {
    topic: 'in',
    partition: 0,
    offset,
    key: Buffer.from(key),
    value: Buffer.from(value),
    timestamp: 1000 + offset,
    headers: { h: Buffer.from(`h${offset}`) },
  };
}

describe('async processors in a StreamTask', () => {
  let dir: string;
  let sent: OutputRecord[];
  let base: Omit<StreamTaskOptions, 'topology'>;
  const out = () => sent.map((r) => `${r.key}=${r.value}`);

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kstreams-async-'));
    sent = [];
    base = {
      id: { subtopology: 0, partition: 0 },
      applicationId: 'app',
      collector: { send: (r) => sent.push(r) },
      storeFactory: (name) => new InMemoryKeyValueStore(name),
      checkpointFile: join(dir, 'checkpoint'),
      logger: silent,
    };
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function task(calls: Calls, options: AsyncOptions, extra: Partial<StreamTaskOptions> = {}) {
    const t = new StreamTask({ ...base, topology: topology(calls, options), ...extra });
    await t.initializeStores();
    await t.initializeTopology();
    return t;
  }

  it('per key: one call of a key at a time, keys concurrently, results as they finish', async () => {
    const calls = new Calls();
    const t = await task(calls, {});
    t.process(input(0, 'a', 'a1'));
    t.process(input(1, 'a', 'a2'));
    t.process(input(2, 'b', 'b1'));
    expect(calls.started).toEqual(['a1', 'b1']);
    calls.finish('b1');
    await tick();
    expect(out()).toEqual(['b=B1']);
    calls.finish('a1');
    await tick();
    expect(out()).toEqual(['b=B1', 'a=A1']);
    expect(calls.started).toEqual(['a1', 'b1', 'a2']);
    calls.finish('a2');
    await t.awaitInFlight();
    expect(out()).toEqual(['b=B1', 'a=A1', 'a=A2']);
    // Each result carries its input record's timestamp and headers.
    expect(sent.map((r) => [r.timestamp, r.headers?.h?.toString()])).toEqual([
      [1002, 'h2'],
      [1000, 'h0'],
      [1001, 'h1'],
    ]);
  });

  it('per partition: calls run concurrently, results leave in input order', async () => {
    const calls = new Calls();
    const t = await task(calls, { ordering: 'partition' });
    t.process(input(0, 'a', 'a1'));
    t.process(input(1, 'b', 'b1'));
    t.process(input(2, 'c', 'c1'));
    expect(calls.started).toEqual(['a1', 'b1', 'c1']);
    calls.finish('c1');
    calls.finish('b1');
    await tick();
    expect(out()).toEqual([]);
    calls.finish('a1');
    await tick();
    expect(out()).toEqual(['a=A1', 'b=B1', 'c=C1']);
  });

  it('back-pressure: at maxInFlight the task takes no record until one finishes', async () => {
    const calls = new Calls();
    let progress = 0;
    const t = await task(calls, { maxInFlight: 2 }, { onAsyncProgress: () => progress++ });
    t.process(input(0, 'a', 'a1'));
    expect(t.canTakeRecord).toBe(true);
    t.process(input(1, 'b', 'b1'));
    expect(t.canTakeRecord).toBe(false);
    expect(t.asyncMetrics()?.inFlight).toBe(2);
    calls.finish('a1');
    await tick();
    expect(t.canTakeRecord).toBe(true);
    expect(progress).toBe(1);
    // Calls beyond maxInFlight (several records of one input) wait for a slot.
    calls.finish('b1');
    await t.awaitInFlight();
    expect(t.asyncMetrics()).toMatchObject({ inFlight: 0, completed: 2, timeouts: 0 });
  });

  it('a full task takes records again once a tenth of its slots are free, not at every finished call', async () => {
    const calls = new Calls();
    const t = await task(calls, { maxInFlight: 20 });
    for (let i = 0; i < 20; i++) t.process(input(i, `k${i}`, `v${i}`));
    expect(t.canTakeRecord).toBe(false);
    calls.finish('v0');
    await tick();
    expect(t.canTakeRecord).toBe(false);
    calls.finish('v1');
    await tick();
    expect(t.canTakeRecord).toBe(true);
    expect(out()).toEqual(['k0=V0', 'k1=V1']);
  });

  it('the commit waits for the records in flight, and refuses to commit past them', async () => {
    const calls = new Calls();
    const t = await task(calls, {});
    t.process(input(7, 'a', 'a1'));
    expect(t.hasInFlight()).toBe(true);
    await expect(t.postCommit([])).rejects.toThrow(/in flight/);
    let settled = false;
    const waiting = t.awaitInFlight().then(() => {
      settled = true;
    });
    await tick();
    expect(settled).toBe(false);
    calls.finish('a1');
    await waiting;
    expect(out()).toEqual(['a=A1']);
    expect(t.consumedOffsets()).toEqual([{ topic: 'in', partition: 0, offset: 8 }]);
    await t.postCommit([]);
    expect(t.commitNeeded).toBe(false);
  });

  it('a rollback abandons the records in flight: their late results are dropped, their calls aborted', async () => {
    const calls = new Calls();
    const t = await task(calls, {});
    t.process(input(0, 'a', 'a1'));
    t.rollback();
    expect(calls.signals.get('a1')?.aborted).toBe(true);
    expect(t.hasInFlight()).toBe(false);
    calls.finish('a1');
    await tick();
    expect(out()).toEqual([]);
    expect(t.consumedOffsets()).toEqual([]);
  });

  it('a timeout goes to the processing handler: continue drops the record and aborts the call', async () => {
    const calls = new Calls();
    const seen: Array<{ offset: number; error: string }> = [];
    const handlers = {
      ...defaultExceptionHandlers,
      processing: (error: Error, ctx: { offset?: number }) => {
        seen.push({ offset: ctx.offset ?? -1, error: error.name });
        return 'continue' as const;
      },
    };
    // The runtime's metrics hook: each finished call with its ms and whether it timed out.
    const finished: Array<{ ms: number; timedOut: boolean }> = [];
    const onAsyncCall = (ms: number, timedOut: boolean) => finished.push({ ms, timedOut });
    const t = await task(calls, { timeoutMs: 20 }, { errorHandling: { handlers }, onAsyncCall });
    t.process(input(4, 'a', 'a1'));
    t.process(input(5, 'b', 'b1'));
    calls.finish('b1');
    await t.awaitInFlight();
    expect(out()).toEqual(['b=B1']);
    expect(seen).toEqual([{ offset: 4, error: 'AsyncTimeoutError' }]);
    expect(calls.signals.get('a1')?.aborted).toBe(true);
    expect(t.asyncMetrics()?.timeouts).toBe(1);
    expect(t.droppedRecordsTotal).toBe(1);
    expect(finished.map((f) => f.timedOut)).toEqual([false, true]);
    expect(finished[1]!.ms).toBeGreaterThanOrEqual(19);
  });

  it('the timeouts of many calls in flight run on one timer of the operator', async () => {
    vi.useFakeTimers();
    try {
      const calls = new Calls();
      const handlers = continueOnError;
      const t = await task(calls, { timeoutMs: 1_000, maxInFlight: 500 }, { errorHandling: { handlers } });
      const before = vi.getTimerCount();
      for (let i = 0; i < 300; i++) t.process(input(i, `k${i}`, `v${i}`));
      expect(vi.getTimerCount() - before).toBe(1);
      for (let i = 0; i < 300; i += 2) calls.finish(`v${i}`);
      await vi.advanceTimersByTimeAsync(999);
      expect(t.asyncMetrics()).toMatchObject({ inFlight: 150, timeouts: 0 });
      await vi.advanceTimersByTimeAsync(1);
      expect(t.asyncMetrics()).toMatchObject({ inFlight: 0, timeouts: 150 });
      expect(sent).toHaveLength(150);
      expect(calls.signals.get('v1')?.aborted).toBe(true);
      expect(vi.getTimerCount() - before).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a failed call fails the task (default handler) at its commit and at its next record', async () => {
    const calls = new Calls();
    const t = await task(calls, {});
    t.process(input(0, 'a', 'a1'));
    calls.fail('a1');
    await tick();
    expect(t.canTakeRecord).toBe(false);
    await expect(t.awaitInFlight()).rejects.toThrow(/call for a1 failed/);
    const t2 = await task(calls, { timeoutMs: 10 });
    t2.process(input(0, 'x', 'x1'));
    await new Promise((r) => setTimeout(r, 30));
    expect(() => t2.process(input(1, 'y', 'y1'))).toThrow(AsyncTimeoutError);
  });

  it('checks its options where the operator is added', () => {
    const calls = new Calls();
    expect(() => topology(calls, { maxInFlight: 0 })).toThrow(ConfigError);
    expect(() => topology(calls, { timeoutMs: -1 })).toThrow(/timeoutMs must be/);
    expect(() => topology(calls, { ordering: 'offset' as never })).toThrow(/ordering must be/);
  });

  it('a signal read only after a timeout or a rollback is already aborted (made on first read)', async () => {
    const builder = new StreamsBuilder();
    const late: Array<{ value: string; call: { signal: AbortSignal } }> = [];
    const pending = new Map<string, () => void>();
    builder
      .stream('in', str)
      .mapValuesAsync(
        async (value: string, _key, call) => {
          await new Promise<void>((r) => pending.set(value, r));
          late.push({ value, call });
          return value;
        },
        { timeoutMs: 20 },
      )
      .to('out', str);
    const t = new StreamTask({
      ...base,
      topology: builder.build(),
      errorHandling: { handlers: continueOnError },
    });
    await t.initializeStores();
    await t.initializeTopology();
    t.process(input(0, 'a', 'a1'));
    await new Promise((r) => setTimeout(r, 40));
    pending.get('a1')!();
    await tick();
    const timedOut = late[0]!.call.signal;
    expect(timedOut.aborted).toBe(true);
    expect(timedOut.reason).toBeInstanceOf(AsyncTimeoutError);

    t.process(input(1, 'b', 'b1'));
    t.rollback();
    pending.get('b1')!();
    await tick();
    expect(late[1]!.call.signal.aborted).toBe(true);
    expect(String(late[1]!.call.signal.reason)).toMatch(/abandoned/);
  });

  it('onAbort listeners: called once on a timeout or a rollback, at once when late, never after the call finished', async () => {
    const builder = new StreamsBuilder();
    const seen: string[] = [];
    const pending = new Map<string, (v: string) => void>();
    const calls = new Map<string, AsyncCall>();
    builder
      .stream('in', str)
      .mapValuesAsync(
        (value: string, _key, call) => {
          calls.set(value, call);
          call.onAbort((reason) =>
            seen.push(`${value}: ${reason instanceof AsyncTimeoutError ? 'timeout' : String(reason)}`),
          );
          return new Promise<string>((r) => pending.set(value, r));
        },
        { timeoutMs: 30 },
      )
      .to('out', str);
    const t = new StreamTask({
      ...base,
      topology: builder.build(),
      errorHandling: { handlers: continueOnError },
    });
    await t.initializeStores();
    await t.initializeTopology();
    t.process(input(0, 'a', 'a1'));
    t.process(input(1, 'b', 'b1'));
    pending.get('b1')!('B1');
    await tick();
    // Finished: a listener added now is never called, nor the one from before.
    calls.get('b1')!.onAbort(() => seen.push('b1 late'));
    await new Promise((r) => setTimeout(r, 60));
    expect(seen).toEqual(['a1: timeout']);
    // After the abort: called at once with the same reason.
    calls.get('a1')!.onAbort((reason) => seen.push(`a1 again: ${reason instanceof AsyncTimeoutError}`));
    expect(seen).toEqual(['a1: timeout', 'a1 again: true']);

    t.process(input(2, 'c', 'c1'));
    t.rollback();
    expect(seen.at(-1)).toMatch(/^c1: Error: the task abandoned the record/);
    expect(seen).toHaveLength(3);
    expect(out()).toEqual(['b=B1']);
  });
});

describe('async processors in the TopologyTestDriver', () => {
  it('pipeInput resolves once the record is processed; stores are read and written per key', async () => {
    const builder = new StreamsBuilder();
    builder.addStateStore(Stores.keyValueStoreBuilder('seen', Serdes.String(), Serdes.Long()));
    builder
      .stream('in', str)
      .filterAsync(async (_k, v) => v !== 'skip')
      .processAsync<string, string>(
        () => {
          let store!: KeyValueStore<string, number>;
          return {
            init: (ctx) => {
              store = ctx.getStateStore('seen');
            },
            process: async (record) => {
              await new Promise((r) => setTimeout(r, 2));
              const n = (store.get(record.key) ?? 0) + 1;
              store.put(record.key, n);
              return [record.withValue(`${record.value}#${n}`)];
            },
          };
        },
        { maxInFlight: 10 },
        'seen',
      )
      .flatMapValuesAsync(async (v: string) => [v, `${v}!`])
      .to('out', str);
    const driver = new TopologyTestDriver(builder.build());
    const inTopic = driver.createInputTopic('in', Serdes.String(), Serdes.String());
    const outTopic = driver.createOutputTopic('out', Serdes.String(), Serdes.String());
    await inTopic.pipeInput('k', 'x');
    await inTopic.pipeInput('k', 'skip');
    await inTopic.pipeInput('k', 'y');
    expect(outTopic.readValuesToList()).toEqual(['x#1', 'x#1!', 'y#2', 'y#2!']);
    expect(driver.getKeyValueStore<string, number>('seen').get('k')).toBe(2);
    await driver.close();
  });

  it('an async processor that forwards through its context gets an error saying to return its records', async () => {
    const builder = new StreamsBuilder();
    builder.stream('in', str).processAsync<string, string>(() => {
      let ctx!: { forward(r: unknown): void };
      return {
        init: (c) => {
          ctx = c as never;
        },
        process: async (record) => {
          ctx.forward(record);
        },
      };
    });
    const driver = new TopologyTestDriver(builder.build());
    const inTopic = driver.createInputTopic('in', Serdes.String(), Serdes.String());
    await expect(inTopic.pipeInput('k', 'v')).rejects.toThrow(StreamsError);
    await expect(
      (async () => {
        const d = new TopologyTestDriver(builder.build());
        await d.createInputTopic('in', Serdes.String(), Serdes.String()).pipeInput('k', 'v');
      })(),
    ).rejects.toThrow(/returning its records from process/);
  });
});

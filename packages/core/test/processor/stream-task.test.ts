import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ENTRY_OVERHEAD_BYTES, InMemoryKeyValueStore, readCheckpoint } from '@kstreams/state-store';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DeserializationError, ProcessingError } from '../../src/errors.ts';
import { defaultExceptionHandlers } from '../../src/processor/exception-handlers.ts';
import type { OutputRecord } from '../../src/processor/internals/records.ts';
import { StreamTask, type StreamTaskOptions } from '../../src/processor/internals/stream-task.ts';
import type { ProcessorContext } from '../../src/processor/processor.ts';
import type { Record } from '../../src/processor/record.ts';
import { Topology } from '../../src/processor/topology.ts';
import { Serdes } from '../../src/serdes/serdes.ts';
import { type KeyValueStore, Stores } from '../../src/state/index.ts';

const silent = pino({ level: 'silent' });

/** Counts records per key in a store and forwards `key -> count`. */
class CountingProcessor {
  private store!: KeyValueStore<string, number>;
  private ctx!: ProcessorContext<string, number>;
  init(ctx: ProcessorContext<string, number>): void {
    this.ctx = ctx;
    this.store = ctx.getStateStore<KeyValueStore<string, number>>('counts');
  }
  process(record: Record<string, string>): void {
    const next = (this.store.get(record.key) ?? 0) + 1;
    this.store.put(record.key, next);
    this.ctx.forward(record.withValue(next));
  }
}

/** Forwards after a timer; throws on 'boom'. */
class SlowProcessor {
  private ctx!: ProcessorContext<string, string>;
  constructor(private readonly order: string[]) {}
  init(ctx: ProcessorContext<string, string>): void {
    this.ctx = ctx;
  }
  async process(record: Record<string, string>): Promise<void> {
    await new Promise((r) => setTimeout(r, 5));
    if (record.value === 'boom') throw new Error('kaput');
    this.order.push(record.value);
    this.ctx.forward(record);
  }
}

function countingTopology(): Topology {
  return new Topology()
    .addSource('src', 'words', { keySerde: Serdes.String(), valueSerde: Serdes.String() })
    .addProcessor('count', () => new CountingProcessor(), 'src')
    .addStateStore(Stores.keyValueStoreBuilder('counts', Serdes.String(), Serdes.Long()), 'count')
    .addSink('out', 'counts-out', { keySerde: Serdes.String(), valueSerde: Serdes.Long() }, 'count');
}

function input(offset: number, key: string, value: string, timestamp = offset) {
  return {
    topic: 'words',
    partition: 3,
    offset,
    key: Buffer.from(key),
    value: Buffer.from(value),
    timestamp,
  };
}

describe('StreamTask', () => {
  let dir: string;
  let sent: OutputRecord[];
  let options: StreamTaskOptions;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kstreams-task-'));
    sent = [];
    options = {
      id: { subtopology: 0, partition: 3 },
      applicationId: 'app',
      topology: countingTopology(),
      collector: { send: (r) => sent.push(r) },
      storeFactory: (name) => new InMemoryKeyValueStore(name),
      checkpointFile: join(dir, 'checkpoint'),
      logger: silent,
    };
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('names its partitions and changelogs', () => {
    const task = new StreamTask(options);
    expect(task.idString).toBe('0_3');
    expect(task.inputPartitions).toEqual([{ topic: 'words', partition: 3 }]);
    expect(task.changelogPartitions).toEqual([
      { topic: 'app-counts-changelog', partition: 3, storeName: 'counts' },
    ]);
  });

  it('processes, buffers store writes until postCommit, and checkpoints changelog offsets', async () => {
    const task = new StreamTask(options);
    expect(await task.initializeStores()).toEqual([]);
    await task.initializeTopology();
    expect(task.commitNeeded).toBe(false);

    expect(task.process(input(10, 'a', 'x'))).toBeUndefined();
    task.process(input(11, 'a', 'y'));
    task.process(input(12, 'b', 'z'));

    expect(sent.map((r) => [r.topic, r.key?.toString(), r.value?.readBigInt64BE(0), r.timestamp])).toEqual([
      ['counts-out', 'a', 1n, 10],
      ['counts-out', 'a', 2n, 11],
      ['counts-out', 'b', 1n, 12],
    ]);
    expect(task.commitNeeded).toBe(true);
    expect(task.consumedOffsets()).toEqual([{ topic: 'words', partition: 3, offset: 13 }]);
    const changelog = task.changelogRecords();
    expect(
      changelog.map((c) => [c.topic, c.partition, c.key.toString(), c.value?.readBigInt64BE(0)]),
    ).toEqual([
      ['app-counts-changelog', 3, 'a', 2n],
      ['app-counts-changelog', 3, 'b', 1n],
    ]);
    // Not applied to the bytes store before the commit.
    expect(task.storeFor('counts').get(Buffer.from('a'))).toBeUndefined();

    await task.postCommit([{ topic: 'app-counts-changelog', partition: 3, offset: 2 }]);
    expect(task.commitNeeded).toBe(false);
    expect(task.changelogRecords()).toEqual([]);
    expect(task.storeFor('counts').get(Buffer.from('a'))?.readBigInt64BE(0)).toBe(2n);
    expect(await readCheckpoint(options.checkpointFile!)).toEqual([
      { topic: 'app-counts-changelog', partition: 3, offset: 2 },
    ]);
    await task.close();
  });

  it('stays due for a commit when its offsets did not reach Kafka, through a rollback, until they do', async () => {
    const task = new StreamTask(options);
    await task.initializeStores();
    await task.initializeTopology();
    task.process(input(0, 'a', 'x'));
    await task.postCommit([{ topic: 'app-counts-changelog', partition: 3, offset: 1 }], {
      offsetsCommitted: false,
    });
    // The stores follow the acknowledged changelog, yet the offsets must be sent again.
    expect(task.storeFor('counts').get(Buffer.from('a'))?.readBigInt64BE(0)).toBe(1n);
    expect(task.changelogRecords()).toEqual([]);
    expect(task.commitNeeded).toBe(true);
    task.rollback();
    expect(task.commitNeeded).toBe(true);
    expect(task.consumedOffsets()).toEqual([{ topic: 'words', partition: 3, offset: 1 }]);
    await task.postCommit([]);
    expect(task.commitNeeded).toBe(false);
    await task.close();
  });

  it('moves its consumed offset past transaction markers, is due for a commit, and rolls that back', async () => {
    const task = new StreamTask(options);
    await task.initializeStores();
    await task.initializeTopology();
    task.process(input(0, 'a', 'x'));
    await task.postCommit([]);
    // The record at 0 was followed by its transaction's commit marker at 1.
    task.skipTo('words', 2);
    expect(task.consumedOffsets()).toEqual([{ topic: 'words', partition: 3, offset: 2 }]);
    expect(task.commitNeeded).toBe(true);
    task.skipTo('words', 1);
    expect(task.consumedOffsets()).toEqual([{ topic: 'words', partition: 3, offset: 2 }]);
    task.rollback();
    expect(task.consumedOffsets()).toEqual([{ topic: 'words', partition: 3, offset: 1 }]);
    expect(task.commitNeeded).toBe(false);
    await task.close();
  });

  it('rollback drops buffered writes and forgets offsets since the last commit', async () => {
    const task = new StreamTask(options);
    await task.initializeStores();
    await task.initializeTopology();
    task.process(input(0, 'a', 'x'));
    await task.postCommit([]);
    task.process(input(1, 'a', 'x'));
    expect(task.consumedOffsets()).toEqual([{ topic: 'words', partition: 3, offset: 2 }]);
    task.rollback();
    expect(task.consumedOffsets()).toEqual([{ topic: 'words', partition: 3, offset: 1 }]);
    expect(task.changelogRecords()).toEqual([]);
    sent.length = 0;
    task.process(input(1, 'a', 'x'));
    expect(sent[0]?.value?.readBigInt64BE(0)).toBe(2n);
    await task.close();
  });

  it('rollback takes stream time back to the last commit, so records processed again are not late', async () => {
    const task = new StreamTask(options);
    await task.initializeStores();
    await task.initializeTopology();
    task.process(input(0, 'a', 'x', 1_000));
    await task.postCommit([]);
    task.process(input(1, 'a', 'x', 60_000));
    expect(task.streamTime()).toBe(60_000);
    task.rollback();
    expect(task.streamTime()).toBe(1_000);
    await task.close();
  });

  it('raises DeserializationError with topic, partition and offset, or skips with "continue"', async () => {
    const topology = new Topology()
      .addSource('src', 'nums', { keySerde: Serdes.String(), valueSerde: Serdes.Int32() })
      .addSink('out', 'copy', { keySerde: Serdes.String(), valueSerde: Serdes.Int32() }, 'src');
    const bad = {
      topic: 'nums',
      partition: 0,
      offset: 7,
      key: null,
      value: Buffer.from([1, 2]),
      timestamp: 1,
    };
    const failing = new StreamTask({ ...options, id: { subtopology: 0, partition: 0 }, topology });
    await failing.initializeStores();
    await failing.initializeTopology();
    let caught: unknown;
    try {
      failing.process(bad);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(DeserializationError);
    expect(caught).toMatchObject({ topic: 'nums', partition: 0, offset: 7, part: 'value' });

    const seen: number[] = [];
    const skipping = new StreamTask({
      ...options,
      id: { subtopology: 0, partition: 0 },
      topology,
      errorHandling: {
        handlers: {
          ...defaultExceptionHandlers,
          deserialization: (error) => {
            seen.push(error.offset);
            return 'continue';
          },
        },
      },
    });
    await skipping.initializeStores();
    await skipping.initializeTopology();
    skipping.process(bad);
    expect(seen).toEqual([7]);
    expect(skipping.droppedRecordsTotal).toBe(1);
    expect(skipping.consumedOffsets()).toEqual([{ topic: 'nums', partition: 0, offset: 8 }]);
    expect(sent).toEqual([]);
  });

  it('awaits async processors and wraps their errors with the task and node', async () => {
    const order: string[] = [];
    const topology = new Topology()
      .addSource('src', 'in', { keySerde: Serdes.String(), valueSerde: Serdes.String() })
      .addProcessor('slow', () => new SlowProcessor(order), 'src')
      .addSink('out', 'out', { keySerde: Serdes.String(), valueSerde: Serdes.String() }, 'slow');
    const task = new StreamTask({ ...options, id: { subtopology: 0, partition: 0 }, topology });
    await task.initializeStores();
    await task.initializeTopology();
    const pending = task.process({ ...input(0, 'k', 'v1'), topic: 'in', partition: 0 });
    expect(pending).toBeInstanceOf(Promise);
    await pending;
    expect(sent.map((r) => r.value?.toString())).toEqual(['v1']);
    expect(order).toEqual(['v1']);
    await expect(task.process({ ...input(1, 'k', 'boom'), topic: 'in', partition: 0 })).rejects.toThrow(
      ProcessingError,
    );
  });

  it('commitRequested: from ctx.commit() and from a buffer past maxUncommittedBytes', async () => {
    const metadata: unknown[] = [];
    const topology = new Topology()
      .addSource('src', 'words', { keySerde: Serdes.String(), valueSerde: Serdes.String() })
      .addProcessor(
        'p',
        () => {
          let ctx: ProcessorContext<never, never>;
          return {
            init(c: ProcessorContext<never, never>) {
              ctx = c;
            },
            process(record: Record<string, string>) {
              metadata.push(ctx.recordMetadata());
              if (record.value === 'commit') ctx.commit();
            },
          };
        },
        'src',
      );
    const task = new StreamTask({ ...options, topology });
    await task.initializeStores();
    await task.initializeTopology();
    task.process(input(4, 'k', 'v'));
    expect(task.commitRequested).toBe(false);
    task.process(input(5, 'k', 'commit'));
    expect(task.commitRequested).toBe(true);
    expect(metadata).toEqual([
      { topic: 'words', partition: 3, offset: 4 },
      { topic: 'words', partition: 3, offset: 5 },
    ]);
    await task.postCommit([]);
    expect([task.commitRequested, task.commitNeeded]).toEqual([false, false]);

    const small = new StreamTask({ ...options, maxUncommittedBytes: ENTRY_OVERHEAD_BYTES + 20 });
    await small.initializeStores();
    await small.initializeTopology();
    small.process(input(0, 'short', 'x'));
    expect(small.commitRequested).toBe(false);
    small.process(input(1, 'a-rather-long-key-past-the-limit', 'x'));
    expect(small.commitRequested).toBe(true);
  });

  it('gives each task its own processor instances', async () => {
    let created = 0;
    const topology = countingTopology().addProcessor(
      'extra',
      () => {
        created += 1;
        return { process() {} };
      },
      'src',
    );
    const a = new StreamTask({ ...options, topology, id: { subtopology: 0, partition: 0 } });
    const b = new StreamTask({ ...options, topology, id: { subtopology: 0, partition: 1 } });
    expect(created).toBe(2);
    expect(b.inputPartitions).toEqual([{ topic: 'words', partition: 1 }]);
    await a.close();
    await b.close();
  });

  it('returns the checkpoint it finds and merges new changelog offsets into it', async () => {
    const first = new StreamTask(options);
    await first.initializeStores();
    await first.postCommit([
      { topic: 'app-counts-changelog', partition: 3, offset: 10 },
      { topic: 'other-changelog', partition: 3, offset: 4 },
    ]);
    await first.close();
    const second = new StreamTask(options);
    expect(await second.initializeStores()).toEqual([
      { topic: 'app-counts-changelog', partition: 3, offset: 10 },
      { topic: 'other-changelog', partition: 3, offset: 4 },
    ]);
    await second.postCommit([{ topic: 'app-counts-changelog', partition: 3, offset: 12 }]);
    expect(await readCheckpoint(options.checkpointFile!)).toEqual([
      { topic: 'app-counts-changelog', partition: 3, offset: 12 },
      { topic: 'other-changelog', partition: 3, offset: 4 },
    ]);
    await second.close();
  });
});

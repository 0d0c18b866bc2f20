// kstreams' own fetch loop (kafka/partition-fetcher.ts) against the real broker: manual assignment
// with seek, pause and resume; read_committed with an aborted and a committed transaction; the
// reset after OFFSET_OUT_OF_RANGE; a partition of a topic created after the assignment.
import { describe, expect, it } from 'vitest';
import { testKafka, topicsForThisFile } from '../../../../scripts/test/kafka.ts';
import { fetchedOffset } from '../../src/kafka/fetch-decoding.ts';
import {
  type FetcherPartition,
  PartitionFetcher,
  type PartitionFetcherOptions,
} from '../../src/kafka/partition-fetcher.ts';
import { produce, stopAfterEach, uniqueName, waitFor } from '../runtime/kafka-helpers.ts';

const topics = topicsForThisFile();
const fetchers = stopAfterEach((f: PartitionFetcher) => f.stop());

interface Seen {
  partition: number;
  offset: number;
  key: string;
}

/** A fetcher that records every message and resolves it; `options` override the defaults. */
function recordingFetcher(options: Partial<PartitionFetcherOptions> = {}) {
  const seen: Seen[] = [];
  const errors: Error[] = [];
  const controls: Array<[number, number, number]> = [];
  const ends = new Map<number, number>();
  const fetcher = new PartitionFetcher({
    kafka: testKafka('fetcher-test'),
    readCommitted: true,
    maxWaitMs: 100,
    maxBytes: 1024 * 1024,
    maxBytesPerPartition: 256 * 1024,
    async onBatch(batch) {
      for (const m of batch.messages) {
        const offset = fetchedOffset(m);
        seen.push({ partition: batch.partition, offset, key: m.key?.toString() ?? '' });
        batch.resolveOffset(offset);
      }
    },
    onFetchedEnd: (_topic, partition, end) => void ends.set(partition, end),
    onControlRecords: (_topic, partition, first, last) => void controls.push([partition, first, last]),
    onOffsetOutOfRange: async () => {
      throw new Error('unexpected OFFSET_OUT_OF_RANGE');
    },
    onError: (e) => void errors.push(e),
    ...options,
  });
  fetchers.push(fetcher);
  return { fetcher, seen, errors, controls, ends };
}

const keys = (seen: Seen[], partition: number) =>
  seen.filter((s) => s.partition === partition).map((s) => s.key);
const records = (prefix: string, n: number, partition: number) =>
  Array.from({ length: n }, (_, i) => ({ key: `${prefix}${i}`, value: 'v', partition }));

describe('PartitionFetcher', () => {
  it('fetches assigned partitions from their positions, with seek, pause and resume', async () => {
    const topic = await topics.create('fetcher-assign', 2);
    await produce(topic, [...records('a', 10, 0), ...records('b', 10, 1)]);
    const { fetcher, seen, errors } = recordingFetcher();
    // Partition 1 has no offset: it waits for a seek.
    fetcher.assign([
      { topic, partition: 0, offset: 3 },
      { topic, partition: 1 },
    ]);
    await fetcher.start();
    await waitFor(() => keys(seen, 0).length === 7, 20_000, 'partition 0 from offset 3');
    expect(keys(seen, 0)).toEqual(['a3', 'a4', 'a5', 'a6', 'a7', 'a8', 'a9']);
    await new Promise((r) => setTimeout(r, 300));
    expect(keys(seen, 1)).toEqual([]);
    expect(fetcher.position({ topic, partition: 1 })).toBeUndefined();

    fetcher.seek({ topic, partition: 1, offset: 8 });
    await waitFor(() => keys(seen, 1).length === 2, 20_000, 'partition 1 after its seek');
    expect(keys(seen, 1)).toEqual(['b8', 'b9']);
    expect(fetcher.position({ topic, partition: 0 })).toBe(10);
    expect(fetcher.position({ topic, partition: 1 })).toBe(10);

    fetcher.pause([{ topic, partition: 0 }]);
    expect(fetcher.paused()).toEqual([{ topic, partitions: [0] }]);
    await produce(topic, [...records('c', 2, 0), ...records('d', 2, 1)]);
    await waitFor(() => keys(seen, 1).length === 4, 20_000, 'partition 1 while 0 is paused');
    await new Promise((r) => setTimeout(r, 300));
    expect(keys(seen, 0)).toHaveLength(7);
    fetcher.resume([{ topic, partition: 0 }]);
    await waitFor(() => keys(seen, 0).length === 9, 20_000, 'partition 0 after resume');
    expect(keys(seen, 0).slice(7)).toEqual(['c0', 'c1']);

    // Seek back: the records come again.
    fetcher.seek({ topic, partition: 0, offset: 0 });
    await waitFor(() => keys(seen, 0).length === 21, 20_000, 'partition 0 after a seek back');
    expect(keys(seen, 0).slice(9, 12)).toEqual(['a0', 'a1', 'a2']);

    await fetcher.unassign([{ topic, partition: 1 }]);
    expect(fetcher.assignment()).toEqual([{ topic, partition: 0 }]);
    expect(errors).toEqual([]);
  });

  it('hides aborted transactions under read_committed and moves past the markers', async () => {
    const topic = await topics.create('fetcher-txn', 1);
    const producer = testKafka().producer({
      transactionalId: uniqueName('fetcher-txn'),
      idempotent: true,
      maxInFlightRequests: 1,
    });
    await producer.connect();
    const aborted = await producer.transaction();
    await aborted.send({
      topic,
      messages: [
        { key: 'aborted1', value: 'x' },
        { key: 'aborted2', value: 'x' },
      ],
    });
    await aborted.abort();
    const committed = await producer.transaction();
    await committed.send({
      topic,
      messages: [
        { key: 'committed1', value: 'x' },
        { key: 'committed2', value: 'x' },
      ],
    });
    await committed.commit();
    await producer.disconnect();
    // aborted1, aborted2, ABORT marker, committed1, committed2, COMMIT marker: offsets 0-5.

    const committedReader = recordingFetcher({ readCommitted: true });
    committedReader.fetcher.assign([{ topic, partition: 0, offset: 0 }]);
    await committedReader.fetcher.start();
    await waitFor(() => committedReader.fetcher.position({ topic, partition: 0 }) === 6, 20_000, 'the end');
    expect(keys(committedReader.seen, 0)).toEqual(['committed1', 'committed2']);
    expect(committedReader.ends.get(0)).toBe(6);
    // The COMMIT marker at 5 came after the last record was resolved: a range of its own.
    expect(committedReader.controls).toContainEqual([0, 5, 5]);

    const uncommittedReader = recordingFetcher({ readCommitted: false });
    uncommittedReader.fetcher.assign([{ topic, partition: 0, offset: 0 }]);
    await uncommittedReader.fetcher.start();
    await waitFor(() => uncommittedReader.fetcher.position({ topic, partition: 0 }) === 6, 20_000, 'the end');
    expect(keys(uncommittedReader.seen, 0)).toEqual(['aborted1', 'aborted2', 'committed1', 'committed2']);
  });

  it('asks for a new position when the position left the log', async () => {
    const topic = await topics.create('fetcher-range', 1);
    await produce(topic, records('r', 3, 0));
    const asked: Array<[FetcherPartition, number]> = [];
    const { fetcher, seen, errors } = recordingFetcher({
      onOffsetOutOfRange: async (tp, position) => {
        asked.push([tp, position]);
        return 1;
      },
    });
    fetcher.assign([{ topic, partition: 0, offset: 1000 }]);
    await fetcher.start();
    await waitFor(() => seen.length === 2, 20_000, 'the records after the reset');
    expect(asked).toEqual([[{ topic, partition: 0 }, 1000]]);
    expect(keys(seen, 0)).toEqual(['r1', 'r2']);
    expect(errors).toEqual([]);
  });

  it('hands the failure of the reset policy to onError', async () => {
    const topic = await topics.create('fetcher-range-fail', 1);
    await produce(topic, records('r', 1, 0));
    const { fetcher, errors } = recordingFetcher();
    fetcher.assign([{ topic, partition: 0, offset: 50 }]);
    await fetcher.start();
    await waitFor(() => errors.length > 0, 20_000, 'onError');
    expect(errors[0]!.message).toBe('unexpected OFFSET_OUT_OF_RANGE');
  });

  it('fetches a partition of a topic created after the assignment', async () => {
    const { fetcher, seen, errors } = recordingFetcher();
    const existing = await topics.create('fetcher-existing', 1);
    await produce(existing, records('e', 1, 0));
    const later = uniqueName('fetcher-later');
    fetcher.assign([
      { topic: later, partition: 0, offset: 0 },
      { topic: existing, partition: 0, offset: 0 },
    ]);
    await fetcher.start();
    // The missing topic does not hold up the one that exists.
    await waitFor(() => seen.length === 1, 20_000, 'the existing topic');
    const admin = await topics.admin();
    await admin.createTopics({ topics: [{ topic: later, numPartitions: 1 }], waitForLeaders: false });
    topics.cleanUpPrefix(later);
    await produce(later, records('l', 2, 0));
    await waitFor(() => seen.length === 3, 30_000, 'the later topic');
    expect(seen.map((s) => s.key)).toEqual(['e0', 'l0', 'l1']);
    expect(errors).toEqual([]);
  });

  it('unassign waits for the partition batch inside onBatch', async () => {
    const topic = await topics.create('fetcher-unassign', 1);
    await produce(topic, records('u', 1, 0));
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    let entered = false;
    let stale: boolean | undefined;
    const { fetcher } = recordingFetcher({
      async onBatch(batch) {
        entered = true;
        await held;
        stale = batch.isStale();
      },
    });
    fetcher.assign([{ topic, partition: 0, offset: 0 }]);
    await fetcher.start();
    await waitFor(() => entered, 20_000, 'the batch in onBatch');
    let unassigned = false;
    const done = fetcher.unassign([{ topic, partition: 0 }]).then(() => {
      unassigned = true;
    });
    await new Promise((r) => setTimeout(r, 200));
    expect(unassigned).toBe(false);
    release();
    await done;
    expect(stale).toBe(true);
  });
});

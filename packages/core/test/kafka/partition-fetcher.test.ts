// The partition fetcher's loop without a broker: a fake kafkajs cluster whose brokers answer each
// fetch from a script. What the loop does with a seek or pause during a fetch, with error answers
// and connection failures, and that handlers never overlap.
import type { Kafka } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { BrokerConnectivity, keepConnectivity } from '../../src/kafka/broker-connectivity.ts';
import type { FetchResponse } from '../../src/kafka/fetch-request.ts';
import type { KafkajsBroker, KafkajsCluster } from '../../src/kafka/kafkajs-cluster.ts';
import {
  type FetcherBatch,
  PartitionFetcher,
  type PartitionFetcherOptions,
} from '../../src/kafka/partition-fetcher.ts';

type Answer = FetchResponse | Error;

/** A cluster of brokers 1 and 2; topic `t`'s partition p is led by `leaders[p]`. */
function fakeCluster(leaders: number[], answer: (nodeId: number, call: number) => Promise<Answer>) {
  const calls = new Map<number, number>();
  let refreshes = 0;
  const broker = (nodeId: number): KafkajsBroker => ({
    nodeId,
    brokerAddress: `b${nodeId}:9092`,
    versions: { 1: { minVersion: 4, maxVersion: 17 } },
    connectionPool: {
      async send() {
        const call = (calls.get(nodeId) ?? 0) + 1;
        calls.set(nodeId, call);
        const a = await answer(nodeId, call);
        if (a instanceof Error) throw a;
        return a;
      },
    },
  });
  const cluster: KafkajsCluster = {
    connect: async () => {},
    disconnect: async () => {},
    findGroupCoordinator: async () => broker(1),
    findBroker: async ({ nodeId }) => broker(nodeId),
    addMultipleTargetTopics: async () => {},
    refreshMetadata: async () => {
      refreshes++;
    },
    findTopicPartitionMetadata: (topic) =>
      topic === 't'
        ? leaders.map((leader, partitionId) => ({ partitionId, leader, partitionErrorCode: 0 }))
        : [],
  };
  return { cluster, calls, refreshes: () => refreshes };
}

const record = (offset: number) => ({
  offset: String(offset),
  timestamp: '0',
  key: Buffer.from(`k${offset}`),
  value: null,
  headers: {},
  attributes: 0,
  isControlRecord: false,
  batchContext: { firstOffset: String(offset), lastOffsetDelta: 0 },
});

const response = (
  partitions: Array<{ partition: number; errorCode?: number; offsets?: number[] }>,
): FetchResponse =>
  ({
    responses: [
      {
        topicName: 't',
        partitions: partitions.map(({ partition, errorCode = 0, offsets = [] }) => ({
          partition,
          errorCode,
          highWatermark: '100',
          lastStableOffset: '100',
          abortedTransactions: [],
          messages: offsets.map(record),
        })),
      },
    ],
  }) as unknown as FetchResponse;

const idle = () => new Promise<Answer>((r) => setTimeout(() => r(response([])), 20));

function fetcherOn(cluster: KafkajsCluster, options: Partial<PartitionFetcherOptions>) {
  const errors: Error[] = [];
  const fetcher = new PartitionFetcher({
    kafka: {} as Kafka,
    cluster,
    readCommitted: true,
    maxWaitMs: 10,
    maxBytes: 1024,
    maxBytesPerPartition: 1024,
    onBatch: async () => {},
    onOffsetOutOfRange: async () => 0,
    onError: (e) => void errors.push(e),
    ...options,
  });
  return { fetcher, errors };
}

const until = async (cond: () => boolean, what: string) => {
  for (let i = 0; i < 200 && !cond(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!cond()) throw new Error(`not reached: ${what}`);
};

describe('PartitionFetcher (fake cluster)', () => {
  it('connects to the leaders of partitions not fetched yet (tasks restoring), once each', async () => {
    const { cluster, calls } = fakeCluster([1, 2, 1], () => idle());
    const found: number[] = [];
    const findBroker = cluster.findBroker;
    cluster.findBroker = (args) => {
      found.push(args.nodeId);
      return findBroker(args);
    };
    const { fetcher } = fetcherOn(cluster, {});
    await fetcher.start();
    // No offsets: nothing is fetched until the tasks seek (after their restore).
    fetcher.assign([0, 1, 2].map((partition) => ({ topic: 't', partition })));
    await until(() => found.length >= 2, 'the leaders connected');
    expect(found.sort()).toEqual([1, 2]);
    expect(calls.size).toBe(0);
    await fetcher.stop();
  });

  it('drops an answer fetched before a seek, and ignores a handler resolving after one', async () => {
    let releaseFirst!: () => void;
    const { cluster } = fakeCluster([1], async (_n, call) => {
      if (call === 1) {
        await new Promise<void>((r) => {
          releaseFirst = r;
        });
        return response([{ partition: 0, offsets: [0, 1] }]);
      }
      if (call === 2) return response([{ partition: 0, offsets: [50] }]);
      return idle();
    });
    const seen: number[] = [];
    let batchOf50: FetcherBatch | undefined;
    const { fetcher } = fetcherOn(cluster, {
      onBatch: async (b) => {
        for (const m of b.messages) seen.push(Number(m.offset));
        batchOf50 = b;
      },
    });
    fetcher.assign([{ topic: 't', partition: 0, offset: 0 }]);
    await fetcher.start();
    await until(() => releaseFirst !== undefined, 'the first fetch');
    fetcher.seek({ topic: 't', partition: 0, offset: 50 });
    releaseFirst();
    await until(() => seen.length > 0, 'a batch');
    expect(seen).toEqual([50]);
    // A seek came while (after) the handler ran: its resolve no longer moves the position.
    fetcher.seek({ topic: 't', partition: 0, offset: 7 });
    expect(batchOf50!.isStale()).toBe(true);
    batchOf50!.resolveOffset(50);
    expect(fetcher.position({ topic: 't', partition: 0 })).toBe(7);
    await fetcher.stop();
  });

  it('refreshes metadata after NOT_LEADER_OR_FOLLOWER and fetches the partition again', async () => {
    const fake = fakeCluster([1], async (_n, call) => {
      if (call === 1) return response([{ partition: 0, errorCode: 6 }]);
      if (call === 2) return response([{ partition: 0, offsets: [0] }]);
      return idle();
    });
    const seen: number[] = [];
    const { fetcher, errors } = fetcherOn(fake.cluster, {
      onBatch: async (b) => {
        for (const m of b.messages) seen.push(Number(m.offset));
        b.resolveOffset(b.lastOffset);
      },
    });
    fetcher.assign([{ topic: 't', partition: 0, offset: 0 }]);
    await fetcher.start();
    await until(() => seen.length === 1, 'the record after the leader moved');
    expect(fake.refreshes()).toBeGreaterThanOrEqual(1);
    expect(fetcher.position({ topic: 't', partition: 0 })).toBe(1);
    expect(errors).toEqual([]);
    await fetcher.stop();
  });

  it('retries a broker that does not answer, and gives up after retryTimeoutMs', async () => {
    const down = Object.assign(new Error('Connection error: connect ECONNREFUSED'), { retriable: true });
    const fake = fakeCluster([1], async () => down);
    const { fetcher, errors } = fetcherOn(fake.cluster, { retryTimeoutMs: 600 });
    fetcher.assign([{ topic: 't', partition: 0, offset: 0 }]);
    await fetcher.start();
    await until(() => errors.length > 0, 'onError');
    // Tried again after a back-off (200 ms, then 400 ms), not in a busy loop.
    expect(fake.calls.get(1)).toBeGreaterThanOrEqual(2);
    expect(fake.calls.get(1)).toBeLessThan(10);
    expect(errors[0]!.message).toMatch(/broker 1 failed every fetch for \d+ ms: Connection error/);
    await fetcher.stop();
  });

  it("records a broker's outage in the app's connectivity record, and its end at the first answer", async () => {
    const down = Object.assign(new Error('Connection error: connect ECONNREFUSED'), {
      name: 'KafkaJSConnectionError',
      retriable: true,
    });
    const fake = fakeCluster([1], async (_n, call) => (call <= 2 ? down : idle()));
    const kafka = {} as Kafka;
    const record = new BrokerConnectivity();
    keepConnectivity(kafka, record);
    const { fetcher } = fetcherOn(fake.cluster, { kafka });
    fetcher.assign([{ topic: 't', partition: 0, offset: 0 }]);
    await fetcher.start();
    await until(() => record.snapshot().outage !== undefined, 'the outage');
    await until(() => record.snapshot().reachable, 'the first answer');
    expect(record.snapshot().lastOutage).toMatchObject({
      lastError: 'Connection error: connect ECONNREFUSED',
      failures: 2,
    });
    await fetcher.stop();
  });

  it('hands out one batch at a time, across brokers too', async () => {
    const fake = fakeCluster([1, 2], async (nodeId, call) =>
      call <= 3 ? response([{ partition: nodeId - 1, offsets: [call - 1] }]) : idle(),
    );
    let inside = 0;
    let most = 0;
    let batches = 0;
    const { fetcher } = fetcherOn(fake.cluster, {
      onBatch: async (b) => {
        inside++;
        most = Math.max(most, inside);
        await new Promise((r) => setTimeout(r, 15));
        b.resolveOffset(b.lastOffset);
        batches++;
        inside--;
      },
    });
    fetcher.assign([
      { topic: 't', partition: 0, offset: 0 },
      { topic: 't', partition: 1, offset: 0 },
    ]);
    await fetcher.start();
    await until(() => batches === 6, 'three batches from each broker');
    expect(most).toBe(1);
    expect(fetcher.position({ topic: 't', partition: 0 })).toBe(3);
    expect(fetcher.position({ topic: 't', partition: 1 })).toBe(3);
    await fetcher.stop();
  });

  it('does not fetch a paused partition, nor one without a position', async () => {
    const fake = fakeCluster([1, 1], async () => idle());
    const { fetcher } = fetcherOn(fake.cluster, {});
    fetcher.assign([
      { topic: 't', partition: 0, offset: 0 },
      { topic: 't', partition: 1 },
    ]);
    fetcher.pause([{ topic: 't', partition: 0 }]);
    await fetcher.start();
    await new Promise((r) => setTimeout(r, 100));
    expect(fake.calls.get(1)).toBeUndefined();
    fetcher.resume([{ topic: 't', partition: 0 }]);
    await until(() => (fake.calls.get(1) ?? 0) > 0, 'a fetch after resume');
    await fetcher.stop();
  });
});

// The group consumer's wiring without a broker: a fake member drives the rebalance listener, a fake
// fetch loop records what the consumer asks of it, a fake coordinator link takes the commits.
import type { Kafka } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { resolveStreamsConfig } from '../../../src/config/streams-config.ts';
import type { Body, CoordinatorLink } from '../../../src/kafka/membership/coordinator.ts';
import {
  type FetchLoop,
  GroupConsumer,
  type GroupConsumerHandlers,
  type Membership,
} from '../../../src/kafka/membership/group-consumer.ts';
import type { RebalanceListener } from '../../../src/kafka/membership/group-member.ts';
import type { FetcherBatch, PartitionFetcherOptions } from '../../../src/kafka/partition-fetcher.ts';

class FakeFetcher implements FetchLoop {
  readonly calls: string[] = [];
  constructor(readonly options: PartitionFetcherOptions) {}
  assign(ps: Array<{ topic: string; partition: number; offset?: number }>): void {
    this.calls.push(`assign ${ps.map((p) => `${p.topic}-${p.partition}`).join(',')}`);
  }
  async unassign(ps: Array<{ topic: string; partition: number }>): Promise<void> {
    this.calls.push(`unassign ${ps.map((p) => `${p.topic}-${p.partition}`).join(',')}`);
  }
  seek(tp: { topic: string; partition: number; offset: number }): void {
    this.calls.push(`seek ${tp.topic}-${tp.partition}@${tp.offset}`);
  }
  pause(): void {}
  resume(): void {}
  paused() {
    return [];
  }
  async start(): Promise<void> {
    this.calls.push('start');
  }
  async stop(): Promise<void> {
    this.calls.push('stop');
  }
}

class FakeMember implements Membership {
  polls = 0;
  closed?: { leaveGroup?: boolean };
  constructor(readonly listener: RebalanceListener) {}
  async start(): Promise<void> {}
  poll(): void {
    this.polls++;
  }
  async close(options: { leaveGroup?: boolean } = {}): Promise<void> {
    this.closed = options;
  }
  groupMetadata() {
    return { generationId: 7, memberId: 'm-7', groupInstanceId: 'pod-0' };
  }
  readonly rejoins: string[] = [];
  /** Resolves the pending rejoin (the join round's end). */
  finishJoin?: () => void;
  rejoin(reason: string): Promise<void> {
    this.rejoins.push(reason);
    return new Promise((resolve) => {
      this.finishJoin = resolve;
    });
  }
}

function consumerWith() {
  let fetcher!: FakeFetcher;
  let member!: FakeMember;
  const log: string[] = [];
  const commits: unknown[] = [];
  const link = {
    findCoordinator: async () => {},
    partitionCounts: async () => new Map(),
    disconnect: async () => {},
    send: async (_api: 'OffsetCommit', body: Body<'OffsetCommit'>) => {
      commits.push(body);
      return { throttleTimeMs: 0, topics: [] };
    },
  } as unknown as CoordinatorLink;
  const config = resolveStreamsConfig({ applicationId: 'app', brokers: '127.0.0.1:1', logger: 'silent' });
  const consumer = new GroupConsumer(
    {} as Kafka,
    config,
    { subtopologies: () => [], ownedTasks: () => [] },
    {
      newFetcher: (options) => {
        fetcher = new FakeFetcher(options);
        return fetcher;
      },
      newMember: (listener) => {
        member = new FakeMember(listener);
        return member;
      },
      commitLink: link,
    },
  );
  const batches: unknown[] = [];
  const handlers: GroupConsumerHandlers = {
    onBatch: async (b) => void batches.push(b),
    listener: {
      onPartitionsRevoked: async (p) => void log.push(`runtime revoked ${JSON.stringify(p)}`),
      onPartitionsAssigned: async (p) => void log.push(`runtime assigned ${JSON.stringify(p)}`),
      onPartitionsLost: async (p) => void log.push(`runtime lost ${JSON.stringify(p)}`),
      onFatal: (e) => void log.push(`fatal ${e.message}`),
    },
    onControlRecords: () => {},
    onOffsetOutOfRange: async () => 0,
    onFetchError: () => {},
    onShutdownRequested: () => void log.push('shutdown requested'),
  };
  return { consumer, handlers, log, commits, batches, fetcher: () => fetcher, member: () => member };
}

describe('GroupConsumer', () => {
  it('assigns new partitions to the fetcher before the runtime hears of them, and unassigns revoked ones after it closed their tasks', async () => {
    const c = consumerWith();
    await c.consumer.start(['in'], c.handlers);
    const { listener } = c.member();
    const order = () => [...c.fetcher().calls.filter((x) => x !== 'start'), ...c.log];
    await listener.onPartitionsAssigned(
      [{ topic: 'in', partitions: [0, 1] }],
      { partitions: [], userData: null },
      3,
    );
    expect(order()).toEqual(['assign in-0,in-1', 'runtime assigned [{"topic":"in","partitions":[0,1]}]']);
    c.fetcher().calls.length = 0;
    c.log.length = 0;
    // The runtime's callback runs before the unassign: record both in one list.
    const seen: string[] = [];
    c.handlers.listener.onPartitionsRevoked = async () => void seen.push('runtime revoked');
    const fetcher = c.fetcher();
    const unassign = fetcher.unassign.bind(fetcher);
    fetcher.unassign = async (ps) => {
      seen.push('unassign');
      await unassign(ps);
    };
    await listener.onPartitionsRevoked([{ topic: 'in', partitions: [1] }]);
    expect(seen).toEqual(['runtime revoked', 'unassign']);
    expect(fetcher.calls).toEqual(['unassign in-1']);
  });

  it('drops a seek of a partition the fetcher no longer holds', async () => {
    const c = consumerWith();
    await c.consumer.start(['in'], c.handlers);
    await c
      .member()
      .listener.onPartitionsAssigned(
        [{ topic: 'in', partitions: [0, 1] }],
        { partitions: [], userData: null },
        3,
      );
    await c.member().listener.onPartitionsLost([{ topic: 'in', partitions: [1] }], new Error('gone'));
    c.consumer.seek({ topic: 'in', partition: 0, offset: 5 });
    c.consumer.seek({ topic: 'in', partition: 1, offset: 5 });
    expect(c.fetcher().calls.filter((x) => x.startsWith('seek'))).toEqual(['seek in-0@5']);
    expect(c.log.at(-1)).toBe('runtime lost [{"topic":"in","partitions":[1]}]');
  });

  it("commits offsets to the coordinator in the member's generation, with its groupInstanceId", async () => {
    const c = consumerWith();
    await c.consumer.start(['in'], c.handlers);
    await c.consumer.commitOffsets([{ topic: 'in', partition: 0, offset: 12 }]);
    expect(c.commits).toEqual([
      {
        groupId: 'app',
        generationId: 7,
        memberId: 'm-7',
        groupInstanceId: 'pod-0',
        topics: [{ topic: 'in', partitions: [{ partition: 0, offset: 12 }] }],
      },
    ]);
  });

  it("hands batches on as the thread's input, each a sign of life of its loop", async () => {
    const c = consumerWith();
    await c.consumer.start(['in'], c.handlers);
    const resolved: number[] = [];
    const batch: FetcherBatch = {
      topic: 'in',
      partition: 0,
      messages: [],
      lastOffset: 9,
      highWatermark: 10,
      endOffset: 10,
      isStale: () => false,
      resolveOffset: (o) => void resolved.push(o),
    };
    await c.fetcher().options.onBatch(batch);
    expect(c.member().polls).toBe(1);
    const input = c.batches[0] as {
      lastOffset: number;
      heartbeat(): Promise<void>;
      resolveOffset(o: number): void;
    };
    expect(input.lastOffset).toBe(9);
    await input.heartbeat();
    expect(c.member().polls).toBe(2);
    input.resolveOffset(4);
    expect(resolved).toEqual([4]);
  });

  it('stops the member (leaving the group only when asked) and the fetcher', async () => {
    const c = consumerWith();
    await c.consumer.start(['in'], c.handlers);
    await c.consumer.stop({ leaveGroup: true });
    expect(c.member().closed).toEqual({ leaveGroup: true });
    expect(c.fetcher().calls.at(-1)).toBe('stop');
  });

  it('SHUTDOWN_APPLICATION: rejoins with the request and waits for the join, bounded', async () => {
    const c = consumerWith();
    await c.consumer.start(['in'], c.handlers);
    let done = false;
    const request = c.consumer.requestShutdown(60_000).then(() => {
      done = true;
    });
    expect(c.member().rejoins).toEqual(['the application shuts down (SHUTDOWN_APPLICATION)']);
    await new Promise((r) => setTimeout(r, 20));
    expect(done).toBe(false);
    c.member().finishJoin?.();
    await request;
    expect(done).toBe(true);
    // A join that never ends does not hold the shutdown past the timeout.
    const started = Date.now();
    await c.consumer.requestShutdown(50);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("tells the runtime when an assignment carries the leader's SHUTDOWN_REQUESTED code, after the runtime took it", async () => {
    const c = consumerWith();
    await c.consumer.start(['in'], c.handlers);
    const { listener } = c.member();
    await listener.onPartitionsAssigned(
      [],
      { partitions: [], userData: Buffer.from('{"tasks":["0_0"]}') },
      3,
    );
    expect(c.log).not.toContain('shutdown requested');
    await listener.onPartitionsAssigned(
      [],
      { partitions: [], userData: Buffer.from(JSON.stringify({ tasks: [], errorCode: 2 })) },
      4,
    );
    expect(c.log.slice(-2)).toEqual(['runtime assigned []', 'shutdown requested']);
  });
});

// KIP-447's two halves on a real broker, through the request versions core adds to kafkajs:
// TxnOffsetCommit v3 carries the consumer group's generation, so the coordinator refuses a zombie's
// offsets; OffsetFetch v7 with require_stable makes a task's new owner wait for a transaction that
// is committing its offsets. And the generation itself, which kafkajs keeps to itself, as core
// sees it in the JoinGroup answers.
// kafkajs is loaded before core here: the added versions work in either load order.
import type { Consumer, Producer } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testKafka, topicsForThisFile } from '../../../../scripts/test/kafka.ts';
import { StreamsAdmin } from '../../src/kafka/admin.ts';
import { retryWhileErrorType } from '../../src/kafka/error-kinds.ts';
import { groupGeneration } from '../../src/kafka/group-generation.ts';
import { type ConsumerGroupMetadata, commitOffsetsInGeneration } from '../../src/kafka/txn-offset-commit.ts';

const topics = topicsForThisFile();
let topic: string;
let group: string;
const consumers: Consumer[] = [];
const producers: Producer[] = [];
let admin: StreamsAdmin;

/** A consumer in `group`; resolves with its member id and the generation of each of its joins. */
async function joinGroup(): Promise<{ memberId: string; joins: Array<{ memberId: string }> }> {
  const consumer = testKafka().consumer({ groupId: group, sessionTimeout: 10_000, rebalanceTimeout: 10_000 });
  consumers.push(consumer);
  const joins: Array<{ memberId: string }> = [];
  const joined = new Promise<string>((resolve) =>
    consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
      joins.push({ memberId: payload.memberId });
      resolve(payload.memberId);
    }),
  );
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({ eachMessage: async () => {} });
  return { memberId: await joined, joins };
}

async function transactionalProducer(transactionalId: string): Promise<Producer> {
  // As core's transactional producers: right after an abort the coordinator answers
  // CONCURRENT_TRANSACTIONS until its markers are written.
  const producer = testKafka().producer({
    transactionalId,
    idempotent: true,
    maxInFlightRequests: 1,
    retry: { retries: 10, initialRetryTime: 10, maxRetryTime: 1_000 },
  });
  producers.push(producer);
  await producer.connect();
  return producer;
}

async function until(condition: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}

type Transaction = Awaited<ReturnType<Producer['transaction']>>;

/** kafkajs does not retry AddOffsetsToTxn's CONCURRENT_TRANSACTIONS (the last abort's markers). */
function sendOffsets(t: Transaction, o: Parameters<Transaction['sendOffsets']>[0]): Promise<void> {
  return retryWhileErrorType('CONCURRENT_TRANSACTIONS', () => t.sendOffsets(o), {
    timeoutMs: 5_000,
    backoffMs: 10,
    maxBackoffMs: 100,
  });
}

const offsets = (partition: number, offset: number) => ({
  consumerGroupId: group,
  topics: [{ topic, partitions: [{ partition, offset: String(offset) }] }],
});

/**
 * An open transaction of a new producer whose offset commits carry the current generation, and
 * partition 0's stable committed offset before it.
 */
async function offsetsTransaction(name: string) {
  const transactionalId = `${topic}-${name}`;
  const producer = await transactionalProducer(transactionalId);
  const unregister = commitOffsetsInGeneration(transactionalId, () => ({
    generationId: currentGeneration,
    memberId: first.memberId,
    groupInstanceId: null,
  }));
  const before = await admin.stableCommittedOffsets(group, [{ topic, partition: 0 }]);
  return { pending: await producer.transaction(), before, unregister };
}

let first: { memberId: string; joins: Array<{ memberId: string }> };
let firstGeneration: number;
let currentGeneration: number;

beforeAll(async () => {
  topic = await topics.create('kip447', 2);
  group = `${topic}-group`;
  topics.cleanUpPrefix(group);
  admin = new StreamsAdmin(testKafka());
  await admin.connect();
  first = await joinGroup();
  firstGeneration = groupGeneration(first.memberId)!;
  // A second member: the group rebalances, and the first member joins a newer generation.
  await joinGroup();
  await until(() => first.joins.length >= 2);
  currentGeneration = groupGeneration(first.memberId)!;
});

afterAll(async () => {
  await Promise.all([...consumers, ...producers].map((c) => c.disconnect().catch(() => {})));
  await admin.disconnect();
});

describe('KIP-447 on kafkajs', () => {
  it('tracks the generation of each join of a consumer of this process', () => {
    expect(firstGeneration).toBeGreaterThanOrEqual(1);
    expect(currentGeneration).toBeGreaterThan(firstGeneration);
  });

  it('TxnOffsetCommit v3: the coordinator refuses offsets from an old generation or an unknown member, takes the current one', async () => {
    const transactionalId = `${topic}-txn`;
    const producer = await transactionalProducer(transactionalId);
    let metadata: ConsumerGroupMetadata = {
      generationId: firstGeneration,
      memberId: first.memberId,
      groupInstanceId: null,
    };
    const unregister = commitOffsetsInGeneration(transactionalId, () => metadata);

    const stale = await producer.transaction();
    await expect(sendOffsets(stale, offsets(0, 3))).rejects.toMatchObject({ type: 'ILLEGAL_GENERATION' });
    await stale.abort();

    metadata = { generationId: currentGeneration, memberId: 'not-a-member', groupInstanceId: null };
    const unknown = await producer.transaction();
    await expect(sendOffsets(unknown, offsets(0, 3))).rejects.toMatchObject({ type: 'UNKNOWN_MEMBER_ID' });
    await unknown.abort();

    metadata = { generationId: currentGeneration, memberId: first.memberId, groupInstanceId: null };
    const current = await producer.transaction();
    await sendOffsets(current, offsets(0, 5));
    await current.commit();
    unregister();
    const committed = await admin.stableCommittedOffsets(group, [{ topic, partition: 0 }]);
    expect(committed).toEqual([{ topic, partition: 0, offset: 5 }]);
    // OffsetFetch v7 without topics asks for all of the group's, as kafkajs' v1-v4 do (the CLI's lag).
    const all = await (await topics.admin()).fetchOffsets({ groupId: group });
    expect(all.find((t) => t.topic === topic)?.partitions.find((p) => p.partition === 0)?.offset).toBe('5');
  });

  it('OffsetFetch v7: a stable fetch waits for the transaction committing its partition, other partitions answer at once', async () => {
    const { pending, before, unregister } = await offsetsTransaction('pending');
    await sendOffsets(pending, offsets(0, 9));

    // Partition 1 has no transaction in flight: answered (never committed: -1) while 0 is pending.
    expect(await admin.stableCommittedOffsets(group, [{ topic, partition: 1 }])).toEqual([
      { topic, partition: 1, offset: -1 },
    ]);
    // Without require_stable the coordinator answers the offset from before the transaction.
    const unstable = await admin.committedOffsets(group, [topic]);
    expect(unstable.find((o) => o.partition === 0)?.offset).toBe(before[0]!.offset);

    let stable: Array<{ offset: number }> | undefined;
    const waiting = admin.stableCommittedOffsets(group, [{ topic, partition: 0 }]).then((o) => {
      stable = o;
      return o;
    });
    await new Promise((r) => setTimeout(r, 1_000));
    expect(stable).toBeUndefined();
    await pending.commit();
    expect(await waiting).toEqual([{ topic, partition: 0, offset: 9 }]);
    unregister();
  });

  it('offsets still pending past the wait are read as committed, and the caller is told', async () => {
    // Stands for a hanging transaction: open past the wait (a real one ends by its timeout).
    const { pending, before, unregister } = await offsetsTransaction('hanging');
    await sendOffsets(pending, offsets(0, 42));
    await expect(
      admin.stableCommittedOffsets(group, [{ topic, partition: 0 }], { waitMs: 300 }),
    ).rejects.toThrow(/unstable offsets/i);
    const told: unknown[] = [];
    const read = await admin.stableCommittedOffsets(group, [{ topic, partition: 0 }], {
      waitMs: 300,
      onStillUnstable: (partitions) => told.push(partitions),
    });
    expect(read.find((o) => o.partition === 0)?.offset).toBe(before[0]!.offset);
    expect(told).toEqual([[{ topic, partition: 0 }]]);
    await pending.abort();
    unregister();
  });
});

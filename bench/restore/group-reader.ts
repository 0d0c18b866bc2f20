// The restore reader kstreams had until 2026-12-06 (packages/core/src/kafka/restore-consumer.ts at
// 734edd8), kept as the restore benchmark's baseline: kafkajs has no assign(), so it joined a
// throw-away consumer group of its own whose assigner handed its single member exactly the
// changelog partitions, and sought to the start offsets after the join.
import { randomUUID } from 'node:crypto';
import { AssignerProtocol, type Kafka, type PartitionAssigner } from 'kafkajs';
import { fetchedOffset, fetchedTimestamp } from '../../packages/core/src/kafka/fetch-decoding.ts';
import type { RestoreRequest } from '../../packages/core/src/kafka/restore-consumer.ts';

function fixedAssigner(wanted: Map<string, number[]>): PartitionAssigner {
  return () => ({
    name: 'kstreams-restore',
    version: 1,
    async assign({ members }) {
      return members.map((m, i) => ({
        memberId: m.memberId,
        memberAssignment: AssignerProtocol.MemberAssignment.encode({
          version: 1,
          assignment: i === 0 ? Object.fromEntries(wanted) : {},
          userData: Buffer.alloc(0),
        }),
      }));
    },
    protocol({ topics }) {
      return {
        name: 'kstreams-restore',
        metadata: AssignerProtocol.MemberMetadata.encode({ version: 1, topics, userData: Buffer.alloc(0) }),
      };
    },
  });
}

const key = (topic: string, partition: number) => `${topic}:${partition}`;

/** Returns the group id it used (the caller deletes it). */
export async function groupRestore(
  kafka: Kafka,
  readCommitted: boolean,
  requests: RestoreRequest[],
): Promise<string> {
  const todo = requests.filter((r) => r.startOffset < r.endOffset);
  const byTp = new Map(todo.map((r) => [key(r.topic, r.partition), r]));
  const position = new Map(todo.map((r) => [key(r.topic, r.partition), r.startOffset]));
  const wanted = new Map<string, number[]>();
  for (const r of todo) wanted.set(r.topic, [...(wanted.get(r.topic) ?? []), r.partition]);
  const groupId = `restore-bench-group-${randomUUID()}`;
  const consumer = kafka.consumer({
    groupId,
    partitionAssigners: [fixedAssigner(wanted)],
    readUncommitted: !readCommitted,
    allowAutoTopicCreation: false,
    maxWaitTimeInMs: 100,
    sessionTimeout: 30_000,
  });
  let finish!: () => void;
  let fail!: (e: Error) => void;
  const done = new Promise<void>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  const advance = (topic: string, partition: number, next: number) => {
    const k = key(topic, partition);
    if (next > (position.get(k) ?? 0)) position.set(k, next);
    if ([...byTp.values()].every((r) => (position.get(key(r.topic, r.partition)) ?? 0) >= r.endOffset))
      finish();
  };
  consumer.on(consumer.events.END_BATCH_PROCESS, (e) =>
    advance(e.payload.topic, e.payload.partition, Number(e.payload.lastOffset) + 1),
  );
  consumer.on(consumer.events.CRASH, (e) => fail(e.payload.error));
  try {
    await consumer.connect();
    await consumer.subscribe({ topics: [...wanted.keys()], fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachBatch: async ({ batch, heartbeat }) => {
        const r = byTp.get(key(batch.topic, batch.partition));
        if (!r) return;
        const records: Array<{ key: Buffer | null; value: Buffer | null; timestamp: number }> = [];
        let last = -1;
        for (const m of batch.messages) {
          const offset = fetchedOffset(m);
          if (offset < r.startOffset || offset >= r.endOffset) continue;
          records.push({ key: m.key, value: m.value, timestamp: fetchedTimestamp(m) });
          last = offset;
        }
        if (records.length > 0) await r.apply(records, last + 1);
        await heartbeat();
      },
    });
    for (const r of todo) {
      if (r.startOffset > 0)
        consumer.seek({ topic: r.topic, partition: r.partition, offset: String(r.startOffset) });
    }
    await done;
  } finally {
    await consumer.disconnect().catch(() => {});
  }
  return groupId;
}

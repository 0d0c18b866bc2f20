// Reads changelog partitions from a start offset to an end offset. kafkajs has no assign(), so
// the restore consumer is the single member of a throw-away group whose assigner hands it
// exactly the partitions wanted.

// First: kafkajs must find core's replacements when it loads (kafkajs-patches.ts).
import './kafkajs-patches.ts';
import { randomUUID } from 'node:crypto';
import { AssignerProtocol, type Kafka, type PartitionAssigner } from 'kafkajs';
import { topicPartitionKey } from '../processor/internals/records.ts';
import type { StreamsAdmin } from './admin.ts';
import { fetchedOffset, fetchedTimestamp } from './fetch-decoding.ts';

export interface RestoreRequest {
  topic: string;
  partition: number;
  /** First offset to read (the checkpoint, or 0). */
  startOffset: number;
  /** Offset after the last record to read: the end offset after fencing. */
  endOffset: number;
  apply(
    records: Array<{ key: Buffer | null; value: Buffer | null; timestamp: number }>,
    batchEndOffset: number,
  ): Promise<void>;
}

export interface RestoreOptions {
  groupIdPrefix: string;
  readCommitted: boolean;
  /** Restores longer than this fail rather than hang (the changelog may be unreadable). */
  timeoutMs: number;
}

/** The single member of its group gets exactly `wanted` (kafkajs has no assign()). */
export function fixedAssigner(wanted: Map<string, number[]>): PartitionAssigner {
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

export async function restoreChangelogs(
  kafka: Kafka,
  admin: StreamsAdmin,
  options: RestoreOptions,
  requests: RestoreRequest[],
): Promise<void> {
  const todo = requests.filter((r) => r.startOffset < r.endOffset);
  if (todo.length === 0) return;
  const byTp = new Map(todo.map((r) => [topicPartitionKey(r.topic, r.partition), r]));
  const position = new Map(todo.map((r) => [topicPartitionKey(r.topic, r.partition), r.startOffset]));
  const wanted = new Map<string, number[]>();
  for (const r of todo) wanted.set(r.topic, [...(wanted.get(r.topic) ?? []), r.partition]);

  const groupId = `${options.groupIdPrefix}-restore-${randomUUID()}`;
  const consumer = kafka.consumer({
    groupId,
    partitionAssigners: [fixedAssigner(wanted)],
    readUncommitted: !options.readCommitted,
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
    const k = topicPartitionKey(topic, partition);
    if (next > (position.get(k) ?? 0)) position.set(k, next);
    if (
      [...byTp.values()].every(
        (r) => (position.get(topicPartitionKey(r.topic, r.partition)) ?? 0) >= r.endOffset,
      )
    )
      finish();
  };
  // A batch that held only transaction markers or aborted records never reaches eachBatch; the
  // end-of-batch event still says how far the position moved.
  consumer.on(consumer.events.END_BATCH_PROCESS, (e) =>
    advance(e.payload.topic, e.payload.partition, Number(e.payload.lastOffset) + 1),
  );
  consumer.on(consumer.events.CRASH, (e) => fail(e.payload.error));
  const timer = setTimeout(
    () =>
      fail(
        new Error(
          `restore of ${[...byTp.keys()].length} changelog partitions did not finish in ${options.timeoutMs} ms`,
        ),
      ),
    options.timeoutMs,
  );
  try {
    await consumer.connect();
    await consumer.subscribe({ topics: [...wanted.keys()], fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      // A stale batch (fetched before our seek) still holds real changelog records; replaying
      // them is harmless because restore writes the last value per key in offset order.
      eachBatch: async ({ batch, heartbeat }) => {
        const r = byTp.get(topicPartitionKey(batch.topic, batch.partition));
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
    clearTimeout(timer);
    await consumer.disconnect().catch(() => {});
    await admin.deleteGroup(groupId);
  }
}

// What a topic's log holds, record by record, independent of any read_committed filter: each
// record's producer id and epoch and the fate of its transaction (the COMMIT or ABORT marker its
// producer wrote after it in that partition, or none yet). For a test whose exactly_once output
// is wrong: it tells a real duplicate (two committed records) from a reader that let an aborted
// transaction through, and shows whether the input itself holds duplicates.
import type { Kafka } from 'kafkajs';
import { uniqueName } from './kafka-helpers.ts';

export type Fate = 'COMMIT' | 'ABORT' | 'OPEN' | 'NO_TXN';

export interface AuditedRecord {
  partition: number;
  offset: number;
  key: string;
  value: Buffer;
  producerId: string;
  epoch: number;
  fate: Fate;
}

export interface AuditedMarker {
  partition: number;
  offset: number;
  producerId: string;
  epoch: number;
  type: 'COMMIT' | 'ABORT';
}

/** kafkajs' raw record: control records and the batch's header are still there. */
interface RawMessage {
  offset: string;
  key: Buffer | null;
  value: Buffer | null;
  isControlRecord: boolean;
  batchContext: {
    producerId: string;
    producerEpoch: number;
    inTransaction: boolean;
    isControlBatch: boolean;
  };
}

/** Reads the whole topic read_uncommitted, control records included. */
export async function auditTopic(
  kafka: Kafka,
  topic: string,
  timeoutMs = 60_000,
): Promise<{ records: AuditedRecord[]; markers: AuditedMarker[] }> {
  const admin = kafka.admin();
  await admin.connect();
  const ends = new Map<number, number>();
  try {
    for (const o of await admin.fetchTopicOffsets(topic)) ends.set(o.partition, Number(o.high));
  } finally {
    await admin.disconnect();
  }
  const raw = new Map<number, RawMessage[]>();
  const reached = new Map<number, number>();
  const done = () => [...ends].every(([p, end]) => end === 0 || (reached.get(p) ?? -1) >= end - 1);
  const groupId = uniqueName('audit');
  const consumer = kafka.consumer({ groupId, readUncommitted: true, maxWaitTimeInMs: 100 });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, timeoutMs);
    const poll = setInterval(() => {
      if (!done()) return;
      clearInterval(poll);
      clearTimeout(timer);
      resolve();
    }, 100);
    void consumer.run({
      eachBatch: async ({ batch }) => {
        const within = (batch as unknown as { messagesWithinOffset: RawMessage[] }).messagesWithinOffset;
        const list = raw.get(batch.partition) ?? [];
        raw.set(batch.partition, list);
        for (const m of within) {
          const offset = Number(m.offset);
          if (offset <= (reached.get(batch.partition) ?? -1)) continue;
          list.push(m);
          reached.set(batch.partition, offset);
        }
      },
    });
  });
  await consumer.disconnect();
  const cleanup = kafka.admin();
  await cleanup.connect();
  await cleanup.deleteGroups([groupId]).catch(() => {});
  await cleanup.disconnect();

  const records: AuditedRecord[] = [];
  const markers: AuditedMarker[] = [];
  for (const [partition, list] of raw) {
    // Per producer id: its transactional records not yet followed by a marker.
    const open = new Map<string, AuditedRecord[]>();
    for (const m of list) {
      const { producerId, producerEpoch: epoch, inTransaction, isControlBatch } = m.batchContext;
      const offset = Number(m.offset);
      if (isControlBatch) {
        // A control record's key: version (int16), type (int16): 0 abort, 1 commit.
        const type = m.key?.length === 4 && m.key.readInt16BE(2) === 1 ? 'COMMIT' : 'ABORT';
        markers.push({ partition, offset, producerId, epoch, type });
        for (const r of open.get(producerId) ?? []) r.fate = type;
        open.delete(producerId);
        continue;
      }
      const record: AuditedRecord = {
        partition,
        offset,
        key: m.key?.toString() ?? '',
        value: m.value ?? Buffer.alloc(0),
        producerId,
        epoch,
        fate: inTransaction ? 'OPEN' : 'NO_TXN',
      };
      records.push(record);
      if (inTransaction) {
        const pending = open.get(producerId) ?? [];
        pending.push(record);
        open.set(producerId, pending);
      }
    }
  }
  return { records, markers };
}

/** `partition:offset` → the audited record, to look up what a reader returned. */
export function byPosition(records: AuditedRecord[]): Map<string, AuditedRecord> {
  return new Map(records.map((r) => [`${r.partition}:${r.offset}`, r]));
}

/** Per key: how many records the audit found with each fate. */
export function fatesByKey(records: AuditedRecord[]): Map<string, Partial<Record<Fate, number>>> {
  const out = new Map<string, Partial<Record<Fate, number>>>();
  for (const r of records) {
    const fates = out.get(r.key) ?? {};
    fates[r.fate] = (fates[r.fate] ?? 0) + 1;
    out.set(r.key, fates);
  }
  return out;
}

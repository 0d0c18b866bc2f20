// Kafka Streams' RecordCollector: how a task's output leaves it. A sink serializes through here;
// the runtime's collector buffers until a flush hands the records to a producer (kafka/producers.ts
// chunks and sends them); the test driver's collector captures them instead. Partitioning of
// records without an explicit partition is the producer's (murmur2 of the key, partitioner.ts).
import { RecordTooLargeError, SerializationError } from '../../errors.ts';
import type { Record } from '../record.ts';
import type { AnySerde, SinkPartitioner } from './internal-topology-builder.ts';
import type { OutputRecord } from './records.ts';

export interface RecordCollector {
  send(record: OutputRecord): void;
}

export interface SinkSerdes {
  readonly name: string;
  readonly keySerde: AnySerde;
  readonly valueSerde: AnySerde;
  readonly partitioner?: SinkPartitioner | undefined;
}

/**
 * Serializes a record at a sink and hands it to the collector; a serde failure names the sink. A
 * record over `maxRecordBytes` (Java's estimate: record batch and record overhead, key, value,
 * headers) is a RecordTooLargeError here, before it reaches a producer.
 */
export function sendSerialized(
  collector: RecordCollector,
  sink: SinkSerdes,
  topic: string,
  record: Record<unknown, unknown>,
  maxRecordBytes = Number.POSITIVE_INFINITY,
): void {
  let key: Buffer | null = null;
  let value: Buffer | null = null;
  let part: 'key' | 'value' = 'key';
  try {
    if (record.key !== null && record.key !== undefined) key = sink.keySerde.serialize(record.key, topic);
    part = 'value';
    if (record.value !== null && record.value !== undefined)
      value = sink.valueSerde.serialize(record.value, topic);
  } catch (cause) {
    throw new SerializationError({ topic, nodeName: sink.name, part }, { cause });
  }
  if (maxRecordBytes !== Number.POSITIVE_INFINITY) {
    const size = estimatedSize(key, value, record.headers);
    if (size > maxRecordBytes) throw new RecordTooLargeError(topic, sink.name, size, maxRecordBytes);
  }
  const partition = sink.partitioner?.(record.key, record.value);
  collector.send({
    topic,
    key,
    value,
    timestamp: record.timestamp,
    headers: record.headers,
    ...(partition === undefined ? {} : { partition }),
  });
}

/** Kafka's record batch header (61 bytes) and a record's worst-case varint overhead (21). */
const RECORD_OVERHEAD = 61 + 21;

function estimatedSize(
  key: Buffer | null,
  value: Buffer | null,
  headers: Record<unknown, unknown>['headers'],
): number {
  let size = RECORD_OVERHEAD + (key?.length ?? 0) + (value?.length ?? 0);
  for (const [name, v] of Object.entries(headers ?? {})) {
    size +=
      Buffer.byteLength(name) +
      10 +
      (v === undefined ? 0 : typeof v === 'string' ? Buffer.byteLength(v) : v.length);
  }
  return size;
}

/**
 * Buffers a task's output between flushes: kafkajs sends one request per send() call and has no
 * linger, so records are sent in batches (at the end of each input batch and at each commit).
 */
export class BufferingRecordCollector implements RecordCollector {
  private pending: OutputRecord[] = [];

  send(record: OutputRecord): void {
    this.pending.push(record);
  }

  get size(): number {
    return this.pending.length;
  }

  drain(): OutputRecord[] {
    const out = this.pending;
    this.pending = [];
    return out;
  }

  /** Drops unsent output of a transaction that is being rolled back. */
  clear(): void {
    this.pending = [];
  }
}

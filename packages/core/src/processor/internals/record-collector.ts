// Kafka Streams' RecordCollector: how a task's output leaves it. A sink serializes through here;
// the runtime's collector buffers until a flush hands the records to a producer (kafka/producers.ts
// sends them); the test driver's collector captures them instead.
import { RecordTooLargeError, SerializationError, StreamsError } from '../../errors.ts';
import type { Headers, Record } from '../record.ts';
import type { AnySerde, SinkPartitioner } from './internal-topology-builder.ts';
import { MAX_BATCH_BYTES, OutputBatch } from './output-batch.ts';
import { partitionForKey } from './partitioner.ts';
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
 * headers) is a RecordTooLargeError here, before it reaches a producer. A sink's partitioner may
 * send it to several partitions (KIP-837 multicast) or to none: returns how many were sent, so
 * that the task counts a record sent nowhere as dropped.
 */
export function sendSerialized(
  collector: RecordCollector,
  sink: SinkSerdes,
  topic: string,
  record: Record<unknown, unknown>,
  maxRecordBytes = Number.POSITIVE_INFINITY,
  partitionCountOf: PartitionCountOf = () => undefined,
): number {
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
  const chosen = sink.partitioner?.(record.key, record.value, topic, () => {
    const width = partitionCountOf(topic);
    if (width !== undefined) return width;
    // Java's producer would block on the topic's metadata here; kstreams reads it at start.
    throw new StreamsError(
      `Sink ${sink.name} has a StreamPartitioner, but the partition count of topic ${topic} is not ` +
        'known: create the topic before the application starts (kstreams reads the counts of its sink topics then)',
    );
  });
  const partitions = chosen === undefined ? [undefined] : typeof chosen === 'number' ? [chosen] : chosen;
  for (const partition of partitions) {
    collector.send({
      topic,
      key,
      value,
      timestamp: record.timestamp,
      headers: record.headers,
      ...(partition === undefined ? {} : { partition }),
    });
  }
  return partitions.length;
}

/** Kafka's record batch header (61 bytes) and a record's worst-case varint overhead (21). */
const RECORD_OVERHEAD = 61 + 21;

/** Java's estimate of a record's bytes: what the size limit checks, and what a batch must fit. */
function estimatedSize(key: Buffer | null, value: Buffer | null, headers: Headers | undefined): number {
  let size = RECORD_OVERHEAD + (key?.length ?? 0) + (value?.length ?? 0);
  // A for-in rather than Object.entries: no array per record for the usual empty headers.
  for (const name in headers) {
    const v = headers[name];
    size +=
      Buffer.byteLength(name) +
      10 +
      (v === undefined ? 0 : typeof v === 'string' ? Buffer.byteLength(v) : v.length);
  }
  return size;
}

/** A task's output between flushes: encoded batches, and records for topics of unknown width. */
export interface CollectedOutput {
  /** Per topic-partition, in the order they were started; a partition's batches in record order. */
  readonly batches: OutputBatch[];
  /** For topics whose partition count the task does not know: the producer partitions them. */
  readonly records: OutputRecord[];
}

/** The partition count of a topic, when the runtime knows it. */
export type PartitionCountOf = (topic: string) => number | undefined;

/**
 * Buffers a task's output between flushes: kafkajs sends one request per send() call and has no
 * linger, so records are sent in batches (at the end of each input batch and at each commit). A
 * record for a topic whose partition count is known is partitioned here (murmur2 of the key, as
 * Java's producer; round robin without a key) and written into its partition's batch at once.
 */
export class BufferingRecordCollector implements RecordCollector {
  private batches: OutputBatch[] = [];
  /** Per topic, the batch each partition appends to. */
  private readonly open = new Map<string, Array<OutputBatch | undefined>>();
  private records: OutputRecord[] = [];
  private count = 0;
  private roundRobin = 0;

  constructor(private readonly partitionCountOf: PartitionCountOf = () => undefined) {}

  send(record: OutputRecord): void {
    this.count += 1;
    const width = this.partitionCountOf(record.topic);
    if (width === undefined) {
      this.records.push(record);
      return;
    }
    const { topic, key, value, headers } = record;
    const partition =
      record.partition ?? (key === null ? this.roundRobin++ % width : partitionForKey(key, width));
    const bytes = estimatedSize(key, value, headers);
    let open = this.open.get(topic);
    if (open === undefined) {
      open = [];
      this.open.set(topic, open);
    }
    let batch = open[partition];
    if (batch === undefined || (batch.count > 0 && batch.bytes + bytes > MAX_BATCH_BYTES)) {
      batch = new OutputBatch(topic, partition, bytes);
      open[partition] = batch;
      this.batches.push(batch);
    }
    batch.append(key, value, record.timestamp, headers);
    if (record.partition !== undefined) batch.explicit = true;
  }

  get size(): number {
    return this.count;
  }

  drain(): CollectedOutput {
    const out = { batches: this.batches, records: this.records };
    this.clear();
    return out;
  }

  /** Drops unsent output of a transaction that is being rolled back. */
  clear(): void {
    this.batches = [];
    this.records = [];
    this.open.clear();
    this.count = 0;
  }
}

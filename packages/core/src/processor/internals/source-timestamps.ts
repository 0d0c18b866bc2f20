// The timestamp of a source's records when its extractor is not the default's fast path: Kafka
// Streams' RecordQueue deserializes each record when it becomes its queue's head and asks the
// extractor, so that the task's partitions are ordered by the extracted time.
import type { Logger } from 'pino';
import { TimestampExtractorError } from '../../errors.ts';
import type { Headers, Record } from '../record.ts';
import {
  type ConsumerRecord,
  FailOnInvalidTimestamp,
  isRecordTimestampFailingOnInvalid,
  type TimestampExtractor,
} from '../timestamp-extractor.ts';
import type { CommitListener } from './commit-point.ts';
import type { NodeDef } from './internal-topology-builder.ts';
import type { RuntimeNodeRef } from './processor-context-impl.ts';
import type { RecordDeserializer, SourceSerdes } from './record-deserializer.ts';
import type { InputReader } from './record-queue.ts';
import type { InputRecord } from './records.ts';

/**
 * An input record whose timestamp is the extracted one, with the record its source forwards. A
 * negative timestamp marks a record the task only consumes: dropped (`deserialized` undefined), or
 * failed (`failure`, thrown when the task processes it); being lowest, it is taken first.
 */
export class StampedRecord implements InputRecord {
  constructor(
    readonly topic: string,
    readonly partition: number,
    readonly offset: number,
    readonly key: Buffer | null,
    readonly value: Buffer | null,
    readonly timestamp: number,
    readonly headers: InputRecord['headers'],
    readonly deserialized: Record<unknown, unknown> | undefined,
    readonly failure?: unknown,
  ) {}
}

/** A source node as far as its timestamps go (TimestampedSource). */
export interface TimestampedSource extends SourceSerdes, RuntimeNodeRef {
  /** By topic, when the source's extractor is not the default's fast path. */
  timestamps: Map<string, SourceTimestamps> | undefined;
}

const skipped = (record: InputRecord, failure?: unknown) =>
  new StampedRecord(
    record.topic,
    record.partition,
    record.offset,
    record.key,
    record.value,
    -1,
    record.headers,
    undefined,
    failure,
  );

export interface SourceTimestampsOptions {
  readonly extractor: TimestampExtractor;
  /** Its serdes read the record. */
  readonly source: TimestampedSource;
  readonly deserializer: RecordDeserializer;
  readonly logger: Logger;
  /** A record of `source` dropped for its negative timestamp (the dropped-records metric). */
  readonly onDropped: (source: TimestampedSource) => void;
}

/**
 * One input partition's extractor and partition time (the largest timestamp the task took from
 * it, -1 while unknown), which follows the task's commits and rollbacks.
 */
export class SourceTimestamps implements CommitListener {
  private partitionTime = -1;
  private committedPartitionTime = -1;

  constructor(private readonly options: SourceTimestampsOptions) {}

  /**
   * What the source's serdes must fetch before `stamp` can deserialize the record (a registry
   * schema not cached yet: RecordDeserializer.prepare), or undefined.
   */
  prepare(record: InputRecord): Promise<unknown> | undefined {
    return this.options.deserializer.prepare(this.options.source, record);
  }

  /** The record with its extracted timestamp (or marked dropped or failed). */
  stamp(record: InputRecord): StampedRecord {
    const { deserializer, source, extractor, logger } = this.options;
    let deserialized: Record<unknown, unknown> | undefined;
    try {
      deserialized = deserializer.deserialize(source, record);
    } catch (error) {
      return skipped(record, error);
    }
    if (deserialized === undefined) return skipped(record);
    const consumerRecord: ConsumerRecord<unknown, unknown> = {
      topic: record.topic,
      partition: record.partition,
      offset: record.offset,
      key: deserialized.key,
      value: deserialized.value,
      timestamp: record.timestamp,
      headers: deserialized.headers as Headers,
    };
    let timestamp: number;
    try {
      timestamp = extractor.extract(consumerRecord, this.partitionTime);
    } catch (error) {
      return skipped(record, extractorFailure(record, error));
    }
    if (typeof timestamp !== 'number' || Number.isNaN(timestamp)) {
      return skipped(
        record,
        new TimestampExtractorError(
          `The TimestampExtractor of ${record.topic} returned ${String(timestamp)} for offset ` +
            `${record.offset} of partition ${record.partition}: it must return a number of ms (negative drops the record)`,
        ),
      );
    }
    if (timestamp < 0) {
      logger.warn(
        {
          topic: record.topic,
          partition: record.partition,
          offset: record.offset,
          extractedTimestamp: timestamp,
        },
        'Skipping record due to negative extracted timestamp',
      );
      this.options.onDropped(source);
      return skipped(record);
    }
    return new StampedRecord(
      record.topic,
      record.partition,
      record.offset,
      record.key,
      record.value,
      timestamp,
      record.headers,
      deserialized.withTimestamp(timestamp),
    );
  }

  /** The task took a record of this partition with this timestamp. */
  taken(timestamp: number): void {
    if (timestamp > this.partitionTime) this.partitionTime = timestamp;
  }

  committed(): void {
    this.committedPartitionTime = this.partitionTime;
  }

  rolledBack(): void {
    this.partitionTime = this.committedPartitionTime;
  }
}

/**
 * Gives each source whose extractor (its own, else the config's default) is not the default's
 * fast path one SourceTimestamps per topic; the others read the record's own timestamp.
 */
export function attachSourceTimestamps(
  nodes: readonly NodeDef[],
  sources: ReadonlyMap<string, TimestampedSource>,
  defaultExtractor: TimestampExtractor | undefined,
  task: Omit<SourceTimestampsOptions, 'extractor' | 'source'> & { listen(listener: CommitListener): void },
): void {
  const extractors = new Map<string, TimestampExtractor | undefined>();
  for (const def of nodes) {
    if (def.kind === 'source') extractors.set(def.name, def.timestampExtractor ?? defaultExtractor);
  }
  const attach = (topic: string, node: TimestampedSource): void => {
    const extractor = extractors.get(node.name);
    if (extractor === undefined || isRecordTimestampFailingOnInvalid(extractor)) return;
    const timestamps = new SourceTimestamps({ ...task, extractor, source: node });
    node.timestamps ??= new Map();
    node.timestamps.set(topic, timestamps);
    task.listen(timestamps);
  };
  for (const [topic, node] of sources) attach(topic, node);
  // A topic that joins a pattern source later (processor-nodes.ts' SourcesByTopic) gets its own.
  if ('onJoin' in sources) (sources as { onJoin?: typeof attach }).onJoin = attach;
}

/**
 * The record with its extracted timestamp (stamped by the runtime's queue, or now, as in the test
 * driver), taken by the task: its partition time moves; a failed stamp throws here.
 */
export function takeStamped(timestamps: SourceTimestamps, record: InputRecord): StampedRecord {
  const stamped = record instanceof StampedRecord ? record : timestamps.stamp(record);
  if (stamped.failure !== undefined) throw stamped.failure;
  if (stamped.deserialized !== undefined) timestamps.taken(stamped.timestamp);
  return stamped;
}

function extractorFailure(record: InputRecord, error: unknown): TimestampExtractorError {
  if (error instanceof TimestampExtractorError) return error;
  return new TimestampExtractorError(
    `Fatal user code error in TimestampExtractor callback for record ${record.topic}-${record.partition}@${record.offset}.`,
    { cause: error },
  );
}

/**
 * The default extractor's error for a record read without an extractor call (the fast path): the
 * same message as FailOnInvalidTimestamp's.
 */
export function invalidTimestampError(record: InputRecord, deserialized: Record<unknown, unknown>): unknown {
  try {
    new FailOnInvalidTimestamp().extract(
      { ...record, key: deserialized.key, value: deserialized.value, headers: deserialized.headers },
      -1,
    );
  } catch (error) {
    return error;
  }
  return new TimestampExtractorError(
    `Input record ${record.topic}@${record.offset} has invalid (negative) timestamp.`,
  );
}

/**
 * Awaits what the serdes must fetch for fetched messages `from`..`to` before they are queued: the
 * partition group stamps a queue's head synchronously (it deserializes it for the extractor), so
 * a schema fetch cannot wait until then. Undefined when nothing is missing.
 */
export function prepareFetched(
  timestamps: SourceTimestamps,
  reader: InputReader,
  fetched: { topic: string; partition: number; messages: readonly unknown[]; from: number; to: number },
): Promise<unknown> | undefined {
  const pending: Promise<unknown>[] = [];
  for (let i = fetched.from; i < fetched.to; i++) {
    const p = timestamps.prepare(reader.record(fetched.topic, fetched.partition, fetched.messages[i]));
    if (p !== undefined) pending.push(p);
  }
  return pending.length === 0 ? undefined : Promise.all(pending);
}

/**
 * A queue's reader that stamps the head once: the partition group reads the head's timestamp
 * several times before it takes it.
 */
export function stampingReader(
  base: InputReader,
  topic: string,
  partition: number,
  timestamps: SourceTimestamps,
): InputReader {
  let lastFetched: unknown;
  let last: StampedRecord | undefined;
  const stamped = (fetched: unknown): StampedRecord => {
    if (last === undefined || fetched !== lastFetched) {
      last = timestamps.stamp(base.record(topic, partition, fetched));
      lastFetched = fetched;
    }
    return last;
  };
  return {
    timestamp: (fetched) => stamped(fetched).timestamp,
    record: (_topic, _partition, fetched) => {
      const record = stamped(fetched);
      // Taken: the next head is another record (a refetch after a rollback brings new objects).
      last = undefined;
      lastFetched = undefined;
      return record;
    },
  };
}

// Kafka Streams' TimestampExtractor and its built-ins: what a source record's timestamp is for
// everything downstream (stream time, windows, joins, suppression, punctuation by stream time, the
// order in which a task takes its partitions' records).
import { type Logger, pino } from 'pino';
import { TimestampExtractorError } from '../errors.ts';
import type { Headers } from './record.ts';

/** A record as its source read it, key and value deserialized (Kafka's ConsumerRecord). */
export interface ConsumerRecord<K, V> {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  readonly key: K;
  readonly value: V;
  /** The timestamp Kafka stored with the record (CreateTime or LogAppendTime). */
  readonly timestamp: number;
  readonly headers: Headers;
}

/**
 * Kafka Streams' TimestampExtractor: the record's timestamp, given the record and its partition's
 * time (the largest timestamp taken from that partition so far; -1 while unknown). A negative
 * result drops the record (logged, counted in the dropped-records metric); an error fails the task.
 */
export interface TimestampExtractor {
  extract(record: ConsumerRecord<unknown, unknown>, partitionTime: number): number;
}

const describe = (record: ConsumerRecord<unknown, unknown>) =>
  `${record.topic}-${record.partition}@${record.offset} (timestamp ${record.timestamp})`;

/**
 * Kafka Streams' ExtractRecordMetadataTimestamp: the record's Kafka timestamp, and what to do when
 * it is negative (a record written without one).
 */
export abstract class ExtractRecordMetadataTimestamp implements TimestampExtractor {
  extract(record: ConsumerRecord<unknown, unknown>, partitionTime: number): number {
    const timestamp = record.timestamp;
    return timestamp < 0 ? this.onInvalidTimestamp(record, timestamp, partitionTime) : timestamp;
  }

  abstract onInvalidTimestamp(
    record: ConsumerRecord<unknown, unknown>,
    recordTimestamp: number,
    partitionTime: number,
  ): number;
}

/** The default (`defaultTimestampExtractor`): a negative timestamp fails the task. */
export class FailOnInvalidTimestamp extends ExtractRecordMetadataTimestamp {
  onInvalidTimestamp(record: ConsumerRecord<unknown, unknown>): number {
    throw new TimestampExtractorError(
      `Input record ${describe(record)} has invalid (negative) timestamp. Possibly because a ` +
        'pre-0.10 producer client was used to write this record to Kafka without embedding a ' +
        'timestamp, or because the input topic was created before upgrading the Kafka cluster to ' +
        '0.10+. Use a different TimestampExtractor to process this data.',
    );
  }
}

let defaultLogger: Logger | undefined;

/** A record with a negative timestamp is dropped: logged here, counted by the task. */
export class LogAndSkipOnInvalidTimestamp extends ExtractRecordMetadataTimestamp {
  constructor(private readonly logger?: Logger) {
    super();
  }

  onInvalidTimestamp(record: ConsumerRecord<unknown, unknown>, recordTimestamp: number): number {
    defaultLogger ??= pino({ name: 'kstreams' });
    (this.logger ?? defaultLogger).warn(
      `Input record ${describe(record)} will be dropped because it has an invalid (negative) timestamp.`,
    );
    return recordTimestamp;
  }
}

/** A record with a negative timestamp gets its partition's time; an error while that is unknown. */
export class UsePartitionTimeOnInvalidTimestamp extends ExtractRecordMetadataTimestamp {
  onInvalidTimestamp(record: ConsumerRecord<unknown, unknown>, _ts: number, partitionTime: number): number {
    if (partitionTime < 0) {
      throw new TimestampExtractorError(
        `Could not infer new timestamp for input record ${describe(record)} because partition time is unknown.`,
      );
    }
    return partitionTime;
  }
}

/** Every record gets the wall-clock time at which it is read (processing-time semantics). */
export class WallclockTimestampExtractor implements TimestampExtractor {
  extract(): number {
    return Date.now();
  }
}

/** Accepts an extractor object or a bare `(record, partitionTime) => number`. */
export type TimestampExtractorLike =
  | TimestampExtractor
  | ((record: ConsumerRecord<unknown, unknown>, partitionTime: number) => number);

/** A function or an object with extract(); undefined for anything else. */
export function toTimestampExtractor(value: unknown): TimestampExtractor | undefined {
  // A class, as Java's default.timestamp.extractor names one: an instance of it.
  if (typeof value === 'function' && typeof value.prototype?.extract === 'function')
    return new (value as new () => TimestampExtractor)();
  if (typeof value === 'function') {
    const fn = value as (record: ConsumerRecord<unknown, unknown>, partitionTime: number) => number;
    return { extract: (record, partitionTime) => fn(record, partitionTime) };
  }
  if (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as TimestampExtractor).extract === 'function'
  )
    return value as TimestampExtractor;
  return undefined;
}

/**
 * Whether the extractor reads the Kafka timestamp and fails on a negative one, as the default
 * does: the task then reads the timestamp straight from the fetched record (no deserialization
 * before ordering, no call per record) and checks only its sign.
 */
export function isRecordTimestampFailingOnInvalid(extractor: TimestampExtractor | undefined): boolean {
  return extractor === undefined || extractor.constructor === FailOnInvalidTimestamp;
}

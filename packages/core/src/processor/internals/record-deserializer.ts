import type { Logger } from 'pino';
import { DeserializationError } from '../../errors.ts';
import { type Headers, Record } from '../record.ts';
import type { AnySerde } from './internal-topology-builder.ts';
import type { DeserializationHandlerResponse, InputRecord } from './records.ts';

export type DeserializationHandler = (
  error: DeserializationError,
  record: InputRecord,
) => DeserializationHandlerResponse;

export interface SourceSerdes {
  readonly keySerde: AnySerde;
  readonly valueSerde: AnySerde;
}

/**
 * Kafka Streams' RecordDeserializer: turns an input record into the Record its source node forwards,
 * or, when a serde fails, asks the handler whether to drop it (counted and logged) or fail.
 */
export class RecordDeserializer {
  private dropped = 0;

  constructor(
    /** Undefined: 'fail' (throw the DeserializationError). */
    private readonly handler: DeserializationHandler | undefined,
    private readonly logger: Logger,
  ) {}

  get droppedRecordsTotal(): number {
    return this.dropped;
  }

  /**
   * What a serde with `prepare` must fetch before this record can be deserialized (a registry
   * schema not cached yet), or undefined: the common case, checked without allocating.
   */
  prepare(source: SourceSerdes, record: InputRecord): Promise<unknown> | undefined {
    const key = record.key === null ? undefined : source.keySerde.prepare?.(record.key, record.topic);
    const value = record.value === null ? undefined : source.valueSerde.prepare?.(record.value, record.topic);
    if (key === undefined) return value;
    return value === undefined ? key : Promise.all([key, value]);
  }

  /** Undefined: the record is dropped. */
  deserialize(source: SourceSerdes, record: InputRecord): Record<unknown, unknown> | undefined {
    let part: 'key' | 'value' = 'key';
    try {
      const key = record.key === null ? null : source.keySerde.deserialize(record.key, record.topic);
      part = 'value';
      const value = record.value === null ? null : source.valueSerde.deserialize(record.value, record.topic);
      return new Record(key, value, record.timestamp, (record.headers ?? {}) as Headers);
    } catch (cause) {
      const error = new DeserializationError(
        { topic: record.topic, partition: record.partition, offset: record.offset, part },
        { cause },
      );
      const response = this.handler === undefined ? 'fail' : this.handler(error, record);
      if (response === 'continue') {
        this.dropped += 1;
        this.logger.warn(
          { topic: record.topic, partition: record.partition, offset: record.offset, err: cause },
          `Skipping a record that cannot be deserialized (${part}); dropped records: ${this.dropped}`,
        );
        return undefined;
      }
      throw error;
    }
  }
}

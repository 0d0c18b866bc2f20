// The settings of where and how sources read (Kafka Streams' default.timestamp.extractor), shared
// by StreamsConfig and the TopologyTestDriver; every mistake becomes a line saying what to change.
import {
  AUTO_OFFSET_RESET_EXPECTED,
  type AutoOffsetReset,
  type AutoOffsetResetLike,
  toAutoOffsetReset,
} from '../processor/auto-offset-reset.ts';
import {
  type TimestampExtractor,
  type TimestampExtractorLike,
  toTimestampExtractor,
} from '../processor/timestamp-extractor.ts';

export interface SourceDefaults {
  /**
   * Kafka Streams' `default.timestamp.extractor`: the timestamp of every source's records, unless
   * its Consumed sets `timestampExtractor`. Default: FailOnInvalidTimestamp (the record's Kafka
   * timestamp; a negative one fails the task).
   */
  defaultTimestampExtractor?: TimestampExtractorLike;
  /**
   * Kafka Streams' `auto.offset.reset`: where a source starts a partition the application's group
   * has no committed offset for: 'earliest' (default), 'latest', 'none' (the task fails) or
   * AutoOffsetReset.byDuration(ms). A source's Consumed `offsetResetPolicy` wins; internal
   * (repartition) topics always start at the earliest offset.
   */
  autoOffsetReset?: AutoOffsetResetLike;
}

export interface ResolvedSourceDefaults {
  /** Undefined: FailOnInvalidTimestamp, read without a call per record. */
  defaultTimestampExtractor: TimestampExtractor | undefined;
  autoOffsetReset: AutoOffsetReset;
}

/** Pushes a line per problem onto `problems`; the result is meaningful only when none was added. */
export function resolveSourceDefaults(settings: SourceDefaults, problems: string[]): ResolvedSourceDefaults {
  const raw = settings.defaultTimestampExtractor;
  const defaultTimestampExtractor = raw === undefined ? undefined : toTimestampExtractor(raw);
  if (raw !== undefined && defaultTimestampExtractor === undefined)
    problems.push(
      '"defaultTimestampExtractor" must be a TimestampExtractor (an object with extract(record, partitionTime), ' +
        'e.g. new LogAndSkipOnInvalidTimestamp()) or a function (record, partitionTime) => number',
    );
  const autoOffsetReset =
    settings.autoOffsetReset === undefined
      ? { type: 'earliest' as const }
      : toAutoOffsetReset(settings.autoOffsetReset);
  if (autoOffsetReset === undefined)
    problems.push(
      `"autoOffsetReset" must be ${AUTO_OFFSET_RESET_EXPECTED}, got ${JSON.stringify(settings.autoOffsetReset)}`,
    );
  return { defaultTimestampExtractor, autoOffsetReset: autoOffsetReset ?? { type: 'earliest' } };
}

import { TopologyError } from '../errors.ts';
import {
  AUTO_OFFSET_RESET_EXPECTED,
  type AutoOffsetResetLike,
  toAutoOffsetReset,
} from './auto-offset-reset.ts';
import type { SourceSettings } from './internals/internal-topology-builder.ts';
import { type TimestampExtractorLike, toTimestampExtractor } from './timestamp-extractor.ts';

/** What a source's options (Consumed, addSource) set besides serdes, checked. */
export interface SourceSettingsInput {
  timestampExtractor?: TimestampExtractorLike | undefined;
  offsetResetPolicy?: AutoOffsetResetLike | undefined;
}

export function sourceSettings(sourceName: string, input: SourceSettingsInput): SourceSettings {
  const settings: SourceSettings = {};
  if (input.timestampExtractor !== undefined) {
    const extractor = toTimestampExtractor(input.timestampExtractor);
    if (extractor === undefined)
      throw new TopologyError(
        `Source ${sourceName}: timestampExtractor must be an object with extract(record, partitionTime) ` +
          '(e.g. new LogAndSkipOnInvalidTimestamp()) or a function (record, partitionTime) => number',
      );
    settings.timestampExtractor = extractor;
  }
  if (input.offsetResetPolicy !== undefined) {
    const policy = toAutoOffsetReset(input.offsetResetPolicy);
    if (policy === undefined)
      throw new TopologyError(
        `Source ${sourceName}: offsetResetPolicy must be ${AUTO_OFFSET_RESET_EXPECTED}, got ${JSON.stringify(input.offsetResetPolicy)}`,
      );
    settings.offsetResetPolicy = policy;
  }
  return settings;
}

export { partitionForKey } from '../processor/internals/partitioner.ts';
export type { KeyQueryMetadata, ReadOnlyKeyValueStore } from './interactive-queries.ts';
export {
  KafkaStreams,
  type KafkaStreamsState,
  type StreamsUncaughtExceptionHandler,
  type StreamThreadExceptionResponse,
} from './kafka-streams.ts';
export type { StreamsMetrics } from './metrics.ts';

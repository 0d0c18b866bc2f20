export type { RestoreProgress } from '../metrics/streams-metrics-recorder.ts';
export { partitionForKey } from '../processor/internals/partitioner.ts';
export {
  type KeyQueryMetadata,
  type QueryableStoreType,
  QueryableStoreTypes,
  type ReadOnlyKeyValueStore,
  type StoreQueryParameters,
} from './interactive-queries.ts';
export {
  type CloseOptions,
  KafkaStreams,
  type KafkaStreamsState,
  type StreamsMetadata,
  type StreamsUncaughtExceptionHandler,
  type StreamThreadExceptionResponse,
} from './kafka-streams.ts';
export type { TaskMetadata, TaskPartitionMetadata, ThreadMetadata } from './local-metadata.ts';
export type { StreamsMetrics } from './metrics.ts';
export type { StateQueryOptions } from './state-query.ts';

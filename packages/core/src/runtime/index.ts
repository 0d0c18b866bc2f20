export type { SubtopologyTopics, TaskSpec } from './assignment.ts';
export {
  KafkaStreams,
  type KafkaStreamsState,
  type StreamsUncaughtExceptionHandler,
  type StreamThreadExceptionResponse,
} from './kafka-streams.ts';
export type { StreamsMetrics } from './metrics.ts';

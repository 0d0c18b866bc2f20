// KafkaStreams' public types and its state machine (kafka-streams.ts holds the class).
export type { StreamsMetadata } from './local-metadata.ts';

/** Kafka Streams' application states. */
export type KafkaStreamsState =
  | 'CREATED'
  | 'REBALANCING'
  | 'RUNNING'
  | 'PENDING_SHUTDOWN'
  | 'NOT_RUNNING'
  | 'PENDING_ERROR'
  | 'ERROR';

/** Kafka Streams' KafkaStreams.CloseOptions. */
export interface CloseOptions {
  /** How long close() waits for the thread to commit and stop (ms). Default 60,000. */
  timeoutMs?: number;
  /**
   * Send LeaveGroup, so that the group rebalances at once. Default: only a dynamic member leaves;
   * a static member (`groupInstanceId`) keeps its place for `consumer.sessionTimeoutMs`.
   */
  leaveGroup?: boolean;
}

/** What to do after an error a stream thread (or the global thread) cannot recover from by itself. */
export type {
  StreamsUncaughtExceptionHandler,
  StreamThreadExceptionResponse,
} from './uncaught-exceptions.ts';

/** Kafka Streams' state machine: the states each state may go to. */
export const TRANSITIONS: Record<KafkaStreamsState, KafkaStreamsState[]> = {
  CREATED: ['REBALANCING', 'PENDING_SHUTDOWN', 'PENDING_ERROR'],
  REBALANCING: ['RUNNING', 'REBALANCING', 'PENDING_SHUTDOWN', 'PENDING_ERROR'],
  RUNNING: ['REBALANCING', 'PENDING_SHUTDOWN', 'PENDING_ERROR'],
  PENDING_SHUTDOWN: ['NOT_RUNNING'],
  NOT_RUNNING: [],
  PENDING_ERROR: ['ERROR'],
  ERROR: [],
};

export interface KafkaStreamsEvents {
  stateChange: [next: KafkaStreamsState, previous: KafkaStreamsState];
  error: [error: Error];
}

/** Whether `work` settles within `timeoutMs` (it goes on either way): close()'s answer. */
export async function finishesWithin(work: Promise<unknown>, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([work.then(() => true as const), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

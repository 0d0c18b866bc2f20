// Asks the user's StreamsUncaughtExceptionHandler what a thread's fatal error does, as Kafka
// Streams' handleStreamsUncaughtException: a handler that throws counts as SHUTDOWN_CLIENT, and
// the global stream thread cannot be replaced (it holds every global store), so REPLACE_THREAD
// for it is SHUTDOWN_CLIENT, with a line saying so.
import type { Logger } from 'pino';

export type StreamThreadExceptionResponse = 'REPLACE_THREAD' | 'SHUTDOWN_CLIENT' | 'SHUTDOWN_APPLICATION';
export type StreamsUncaughtExceptionHandler = (error: Error) => StreamThreadExceptionResponse;

const RESPONSES = new Set<unknown>(['REPLACE_THREAD', 'SHUTDOWN_CLIENT', 'SHUTDOWN_APPLICATION']);

export function askUncaughtHandler(
  handler: StreamsUncaughtExceptionHandler,
  error: Error,
  logger: Pick<Logger, 'error'>,
  thread: 'stream' | 'global',
): StreamThreadExceptionResponse {
  let response: unknown;
  try {
    response = handler(error);
  } catch (handlerError) {
    logger.error({ err: handlerError }, 'the uncaught exception handler threw; shutting down');
    return 'SHUTDOWN_CLIENT';
  }
  if (!RESPONSES.has(response)) {
    logger.error(
      { response },
      "the uncaught exception handler must return 'REPLACE_THREAD', 'SHUTDOWN_CLIENT' or 'SHUTDOWN_APPLICATION'; shutting down",
    );
    return 'SHUTDOWN_CLIENT';
  }
  if (thread === 'global' && response === 'REPLACE_THREAD') {
    logger.error(
      { err: error },
      'the global stream thread failed and cannot be replaced (REPLACE_THREAD): shutting down the client, as Kafka Streams does',
    );
    return 'SHUTDOWN_CLIENT';
  }
  return response as StreamThreadExceptionResponse;
}

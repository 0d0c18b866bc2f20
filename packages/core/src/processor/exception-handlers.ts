// Kafka Streams' exception handlers (deserialization, KIP-1033 processing, production) as the
// user configures them. Each handler answers 'continue' (drop the record, and with a dead-letter
// queue topic send it there) or 'fail' (the error goes on as without a handler).
import { type DeserializationError, RecordSendError } from '../errors.ts';
import type { Headers, Record } from './record.ts';

export type HandlerResponse = 'continue' | 'fail';

/**
 * The production handler's answers (KIP-1065 added `retry`): 'retry' re-runs the task from its
 * last commit, after a back-off, for a send that failed with a retriable error (a timeout, a
 * broker away); for any other error Kafka Streams treats 'retry' as 'fail', and so does kstreams.
 */
export type ProductionHandlerResponse = HandlerResponse | 'retry';

/**
 * Kafka Streams' ErrorHandlerContext: where the failed record came from. `key` and `value` are
 * the source record's bytes as read from Kafka (what the dead-letter queue receives).
 */
export interface ErrorHandlerContext {
  readonly taskId: string;
  /** The node that failed: the source (deserialization), a processor, or the sink (production). */
  readonly processorNodeId: string;
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  readonly timestamp: number;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers: { readonly [name: string]: Buffer | string | undefined };
}

/**
 * A record a sink failed to write: its key and value as the sink had them when serializing failed
 * or the record was too large, its bytes (Buffers) when the broker refused or a send timed out.
 */
export interface ProducedRecord {
  readonly topic: string;
  /** Set when the send failed (the partition it was sent to); undefined before partitioning. */
  readonly partition?: number;
  readonly key: unknown;
  readonly value: unknown;
  readonly timestamp: number;
  readonly headers: Headers;
}

export type DeserializationExceptionHandler = (
  error: DeserializationError,
  context: ErrorHandlerContext,
) => HandlerResponse;

/**
 * KIP-1033: a processor threw while processing `record` (the record as that processor got it), or
 * a punctuator threw (`record` null, as Kafka Streams 3.9+ passes it). During a punctuation there
 * is no source record: `topic` is '' and `partition`, `offset` are -1.
 */
export type ProcessingExceptionHandler = (
  error: Error,
  context: ErrorHandlerContext & { readonly record: Record<unknown, unknown> | null },
) => HandlerResponse;

/**
 * As in Kafka Streams 4.4, asked for every record a sink could not write: it could not be
 * serialized, it is larger than `producer.maxRequestSize`, the broker refused it (larger than the
 * topic's `max.message.bytes`, invalid), or its send failed after the client's retries (a timeout,
 * not enough replicas). Not asked, as in Java, when nothing the handler answers could help: the
 * broker denied the write (ACLs, authentication), the topic name is invalid, the broker failed
 * (UNKNOWN_SERVER_ERROR), or another instance fenced the producer; these stop the thread, or move
 * the task, as before.
 *
 * For a failed send the output had already left the task (it is sent in batches), so the context
 * has no source record: `topic` is '' and `partition`, `offset` are -1, as during a punctuation,
 * and nothing goes to the dead-letter queue. 'continue' drops the record (counted, logged); 'fail'
 * stops the stream thread (the uncaught exception handler decides what next); 'retry' (retriable
 * errors only, else 'fail') rolls the task back to its last commit and runs it again.
 */
export type ProductionExceptionHandler = (
  error: Error,
  context: ErrorHandlerContext & { readonly record: ProducedRecord },
) => ProductionHandlerResponse;

export type DeserializationExceptionHandlerConfig =
  | 'logAndFail'
  | 'logAndContinue'
  | DeserializationExceptionHandler
  /** Before `errors.deadLetterQueueTopic`: logAndContinue, sending the record to this topic. */
  | { deadLetterTopic: string };

export type ProcessingExceptionHandlerConfig = 'logAndFail' | 'logAndContinue' | ProcessingExceptionHandler;

/**
 * 'fail' (default) is Java's DefaultProductionExceptionHandler of 4.x: 'retry' for a retriable
 * send error, 'fail' for any other. 'continue' drops every failed record.
 */
export type ProductionExceptionHandlerConfig = 'fail' | 'continue' | ProductionExceptionHandler;

/** The three handlers with their defaults, and the dead-letter queue topic (KIP-1034). */
export interface ResolvedExceptionHandlers {
  readonly deserialization: DeserializationExceptionHandler;
  readonly processing: ProcessingExceptionHandler;
  readonly production: ProductionExceptionHandler;
  /** Names of the built-in handlers, for log lines; 'custom' for a function. */
  readonly names: { deserialization: string; processing: string; production: string };
  readonly deadLetterQueueTopic: string | undefined;
}

const FAIL = () => 'fail' as const;

/**
 * Java's DefaultProductionExceptionHandler (4.x, KIP-1065): 'retry' when sending again may succeed
 * (a send that timed out, a broker away), 'fail' for everything else.
 */
export const defaultProductionHandler: ProductionExceptionHandler = (error) =>
  error instanceof RecordSendError && error.retriable ? 'retry' : 'fail';

/** Every handler fails (Kafka Streams' defaults), no dead-letter queue. */
export const defaultExceptionHandlers: ResolvedExceptionHandlers = {
  deserialization: FAIL,
  processing: FAIL,
  production: defaultProductionHandler,
  names: { deserialization: 'logAndFail', processing: 'logAndFail', production: 'fail' },
  deadLetterQueueTopic: undefined,
};

// Kafka Streams' exception handlers (deserialization, KIP-1033 processing, production) as the
// user configures them. Each handler answers 'continue' (drop the record, and with a dead-letter
// queue topic send it there) or 'fail' (the error goes on as without a handler).
import type { DeserializationError } from '../errors.ts';
import type { Headers, Record } from './record.ts';

export type HandlerResponse = 'continue' | 'fail';

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

/** A record a sink failed to write: its key and value (serialized when the broker refused it). */
export interface ProducedRecord {
  readonly topic: string;
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
 * A sink could not serialize a record, or the record can never be written (larger than
 * `producer.maxRequestSize`). Retriable send errors never come here. During a punctuation there is
 * no source record: `topic` is '' and `partition`, `offset` are -1.
 */
export type ProductionExceptionHandler = (
  error: Error,
  context: ErrorHandlerContext & { readonly record: ProducedRecord },
) => HandlerResponse;

export type DeserializationExceptionHandlerConfig =
  | 'logAndFail'
  | 'logAndContinue'
  | DeserializationExceptionHandler
  /** Before `errors.deadLetterQueueTopic`: logAndContinue, sending the record to this topic. */
  | { deadLetterTopic: string };

export type ProcessingExceptionHandlerConfig = 'logAndFail' | 'logAndContinue' | ProcessingExceptionHandler;

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

/** Every handler fails (Kafka Streams' defaults), no dead-letter queue. */
export const defaultExceptionHandlers: ResolvedExceptionHandlers = {
  deserialization: FAIL,
  processing: FAIL,
  production: FAIL,
  names: { deserialization: 'logAndFail', processing: 'logAndFail', production: 'fail' },
  deadLetterQueueTopic: undefined,
};

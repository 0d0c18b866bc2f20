// A task's side of the exception handlers: builds the context a handler sees, asks it, and for
// 'continue' drops the record (counted, logged) and sends it to the dead-letter queue through the
// task's RecordCollector, so that under exactly_once the DLQ write is part of the task's
// transaction and is rolled back with it.
import type { Logger } from 'pino';
import {
  type DeserializationError,
  ProcessingError,
  ProductionError,
  type RecordSendError,
  RecordTooLargeError,
  SerializationError,
} from '../../errors.ts';
import {
  defaultExceptionHandlers,
  type ErrorHandlerContext,
  type HandlerResponse,
  type ProducedRecord,
  type ProductionHandlerResponse,
  type ResolvedExceptionHandlers,
} from '../exception-handlers.ts';
import type { Record } from '../record.ts';
import {
  type PartitionCountOf,
  type RecordCollector,
  type SinkSerdes,
  sendSerialized,
} from './record-collector.ts';
import { RecordDeserializer } from './record-deserializer.ts';
import type { InputRecord, OutputRecord } from './records.ts';
import { RetryBackoff } from './retry-backoff.ts';

/** KIP-1034's header names, as Kafka Streams writes them. */
export const DLQ_HEADERS = {
  exception: '__streams.errors.exception',
  message: '__streams.errors.message',
  stacktrace: '__streams.errors.stacktrace',
  topic: '__streams.errors.topic',
  partition: '__streams.errors.partition',
  offset: '__streams.errors.offset',
} as const;

export type FailureKind = 'deserialization' | 'processing' | 'production';

export interface ErrorHandlingOptions {
  /** Default: every handler fails, no dead-letter queue. */
  handlers?: ResolvedExceptionHandlers;
  /** Told of each record a handler dropped (metrics). */
  onDropped?: (kind: FailureKind, deadLettered: boolean) => void;
  /** A sink record larger than this is a RecordTooLargeError (producer.maxRequestSize). */
  maxRecordBytes?: number;
  /** Topics' partition counts, for a sink's StreamPartitioner (the test driver: 1, as Java's). */
  partitionCountOf?: PartitionCountOf;
}

const isJudged = (e: unknown): boolean =>
  e instanceof ProcessingError || e instanceof SerializationError || e instanceof RecordTooLargeError;

const asError = (e: unknown): Error => (e instanceof Error ? e : new Error(String(e)));

export class TaskExceptionHandling {
  private dropped = 0;
  private readonly handlers: ResolvedExceptionHandlers;
  private readonly retries = new RetryBackoff();

  constructor(
    private readonly taskId: string,
    private readonly collector: RecordCollector,
    private readonly logger: Logger,
    private readonly options: ErrorHandlingOptions = {},
  ) {
    this.handlers = options.handlers ?? defaultExceptionHandlers;
  }

  /** Processing and production drops (the deserializer counts its own). */
  get droppedRecordsTotal(): number {
    return this.dropped;
  }

  /** The task's RecordDeserializer, asking the deserialization handler (`sourceName`: a topic's source node). */
  recordDeserializer(sourceName: (topic: string) => string): RecordDeserializer {
    return new RecordDeserializer(
      (error, record) => this.deserialization(error, record, sourceName(record.topic)),
      this.logger,
    );
  }

  /** The deserializer logs and counts the skip; this asks the handler and dead-letters. */
  deserialization(error: DeserializationError, record: InputRecord, sourceNode: string): HandlerResponse {
    const context = this.context(record, sourceNode);
    const response = this.ask('deserialization', error, () => this.handlers.deserialization(error, context));
    if (response !== 'continue') return 'fail';
    this.deadLetter('deserialization', error, context);
    return response;
  }

  /**
   * KIP-1033. True: the record is dropped and processing goes on. The handler sees a node's own
   * error once: errors from deeper nodes (already judged there) and production errors pass. While
   * punctuating (`input` undefined) the context has no source record (topic '', offset -1), as in
   * Kafka Streams 3.9+, and nothing goes to the dead-letter queue: nothing was read.
   */
  processing(
    error: unknown,
    nodeName: string,
    input: InputRecord | undefined,
    record: Record<unknown, unknown> | null,
  ): boolean {
    if (isJudged(error)) return false;
    const err = asError(error);
    const context = { ...this.context(input, nodeName), record };
    return this.decide(
      'processing',
      err,
      context,
      () => this.handlers.processing(err, context),
      input !== undefined,
    );
  }

  /** A punctuator that threw (Kafka Streams 3.9+): the processing handler, with no record. */
  punctuation(error: unknown, nodeName: string): boolean {
    return this.processing(error, nodeName, undefined, null);
  }

  /** The same for a punctuator's promise. */
  punctuationAsync(result: Promise<void>, nodeName: string): Promise<void> {
    return result.catch((error: unknown) => {
      if (!this.punctuation(error, nodeName)) throw error;
    });
  }

  /** The processing handler for a processor's promise (the record's input is taken now). */
  processingAsync(
    result: Promise<void>,
    nodeName: string,
    input: InputRecord | undefined,
    record: Record<unknown, unknown>,
  ): Promise<void> {
    return result.catch((error: unknown) => {
      if (!this.processing(error, nodeName, input, record)) throw error;
    });
  }

  /**
   * A sink's send: serialization errors and too-large records go to the production handler.
   * Returns false when the sink's partitioner chose no partition (KIP-837: the record is dropped).
   */
  send(
    sink: SinkSerdes,
    topic: string,
    record: Record<unknown, unknown>,
    input: InputRecord | undefined,
  ): boolean {
    try {
      const { maxRecordBytes, partitionCountOf } = this.options;
      return sendSerialized(this.collector, sink, topic, record, maxRecordBytes, partitionCountOf) > 0;
    } catch (error) {
      if (!(error instanceof SerializationError || error instanceof RecordTooLargeError)) throw error;
      const { key, value, timestamp, headers } = record;
      if (!this.production(error, sink.name, input, { topic, key, value, timestamp, headers })) throw error;
      return true;
    }
  }

  /** True: the record is dropped and processing goes on. */
  production(
    error: Error,
    sinkName: string,
    input: InputRecord | undefined,
    record: ProducedRecord,
  ): boolean {
    const context = { ...this.context(input, sinkName), record };
    return this.decide('production', error, context, () => this.handlers.production(error, context));
  }

  /**
   * A record of a failed send, as Kafka Streams' recordSendError: `askHandler` false (an invalid
   * topic, UNKNOWN_SERVER_ERROR) fails without asking. 'continue' drops the record (resolves);
   * 'fail' throws a ProductionError, which stops the thread; 'retry', for a retriable error, throws
   * the send's own error after a back-off, so that the task rolls back to its last commit and runs
   * again (Java's TaskCorruptedException); for any other error 'retry' is 'fail'.
   */
  async sendFailed(error: RecordSendError, record: OutputRecord, askHandler: boolean): Promise<void> {
    if (!askHandler)
      throw new ProductionError(
        this.taskId,
        'Kafka Streams stops for this error without asking the handler',
        {
          cause: error,
        },
      );
    const produced: ProducedRecord = {
      topic: record.topic,
      ...(record.partition === undefined ? {} : { partition: record.partition }),
      key: record.key,
      value: record.value,
      timestamp: record.timestamp,
      headers: record.headers ?? {},
    };
    // The output left the task in a batch: no source record, and no sink (as while punctuating).
    const context = { ...this.context(undefined, ''), record: produced };
    const response = this.ask('production', error, () => this.handlers.production(error, context));
    if (response === 'retry' && error.retriable) {
      const pause = this.retries.next();
      this.logger.warn(
        { err: error, retryInMs: pause },
        'a send failed; the productionExceptionHandler answered retry: the task goes back to its last commit',
      );
      await new Promise((r) => setTimeout(r, pause));
      throw error.cause;
    }
    if (!this.decideAnswered('production', error, context, response, false))
      throw new ProductionError(
        this.taskId,
        `The productionExceptionHandler (${this.handlers.names.production}) answered '${response}'${response === 'retry' ? ' for an error that is not retriable, which counts as fail' : ''}: no more records are sent`,
        { cause: error },
      );
  }

  private decide(
    kind: FailureKind,
    error: Error,
    context: ErrorHandlerContext,
    handle: () => ProductionHandlerResponse,
    deadLetter = true,
  ): boolean {
    return this.decideAnswered(kind, error, context, this.ask(kind, error, handle), deadLetter);
  }

  private decideAnswered(
    kind: FailureKind,
    error: Error,
    context: ErrorHandlerContext,
    response: ProductionHandlerResponse,
    deadLetter: boolean,
  ): boolean {
    if (response === 'retry')
      this.logger.warn(
        { err: error },
        `the ${kind}ExceptionHandler answered retry for an error that is not retriable: treated as fail, as in Kafka Streams`,
      );
    if (response !== 'continue') return false;
    this.dropped += 1;
    this.logger.warn(
      {
        err: error,
        topic: context.topic,
        partition: context.partition,
        offset: context.offset,
        node: context.processorNodeId,
      },
      `Skipping a record after a ${kind} error (${kind}ExceptionHandler: ${this.handlers.names[kind]}); dropped records: ${this.dropped}`,
    );
    if (deadLetter) this.deadLetter(kind, error, context);
    else this.options.onDropped?.(kind, false);
    return true;
  }

  /** A handler that throws or answers something else fails the record, saying so. */
  private ask(
    kind: FailureKind,
    error: Error,
    handle: () => ProductionHandlerResponse,
  ): ProductionHandlerResponse {
    let response: unknown;
    try {
      response = handle();
    } catch (handlerError) {
      this.logger.error(
        { err: handlerError, original: error },
        `the ${kind}ExceptionHandler threw; failing the record`,
      );
      return 'fail';
    }
    if (response === 'continue' || response === 'fail') return response;
    if (response === 'retry' && kind === 'production') return response;
    const allowed = kind === 'production' ? "'continue', 'fail' or 'retry'" : "'continue' or 'fail'";
    this.logger.error(
      { response, err: error },
      `the ${kind}ExceptionHandler must return ${allowed}; failing the record`,
    );
    return 'fail';
  }

  private deadLetter(kind: FailureKind, error: Error, context: ErrorHandlerContext): void {
    const topic = this.handlers.deadLetterQueueTopic;
    if (topic !== undefined) this.collector.send(deadLetterRecord(topic, error, context));
    this.options.onDropped?.(kind, topic !== undefined);
  }

  private context(input: InputRecord | undefined, node: string): ErrorHandlerContext {
    return {
      taskId: this.taskId,
      processorNodeId: node,
      topic: input?.topic ?? '',
      partition: input?.partition ?? -1,
      offset: input?.offset ?? -1,
      timestamp: input?.timestamp ?? -1,
      key: input?.key ?? null,
      value: input?.value ?? null,
      headers: input?.headers ?? {},
    };
  }
}

/**
 * Kafka Streams' dead-letter record (KIP-1034): the source record's bytes, timestamp and headers,
 * plus the exception's name, message and stack and where the record was read.
 */
export function deadLetterRecord(topic: string, error: Error, context: ErrorHandlerContext): OutputRecord {
  return {
    topic,
    key: context.key,
    value: context.value,
    timestamp: context.timestamp >= 0 ? context.timestamp : Date.now(),
    headers: {
      ...context.headers,
      [DLQ_HEADERS.exception]: error.name,
      [DLQ_HEADERS.message]: error.message,
      [DLQ_HEADERS.stacktrace]: error.stack ?? `${error.name}: ${error.message}`,
      [DLQ_HEADERS.topic]: context.topic,
      [DLQ_HEADERS.partition]: String(context.partition),
      [DLQ_HEADERS.offset]: String(context.offset),
    },
  };
}

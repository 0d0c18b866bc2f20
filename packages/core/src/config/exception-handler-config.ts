// Parses the exception handler settings (shared by StreamsConfig and the TopologyTestDriver):
// the built-in names become functions, and every mistake becomes a line saying what to change.
import {
  type DeserializationExceptionHandler,
  type DeserializationExceptionHandlerConfig,
  defaultProductionHandler,
  type ProcessingExceptionHandler,
  type ProcessingExceptionHandlerConfig,
  type ProductionExceptionHandler,
  type ProductionExceptionHandlerConfig,
  type ResolvedExceptionHandlers,
} from '../processor/exception-handlers.ts';

export interface ExceptionHandlerSettings {
  deserializationExceptionHandler?: DeserializationExceptionHandlerConfig;
  processingExceptionHandler?: ProcessingExceptionHandlerConfig;
  productionExceptionHandler?: ProductionExceptionHandlerConfig;
  /** Kafka Streams' `errors.*` settings. */
  errors?: ErrorsConfig;
}

export interface ErrorsConfig {
  /**
   * KIP-1034's `errors.dead.letter.queue.topic.name`: a record that a handler answers 'continue'
   * for is sent there (its source bytes, with `__streams.errors.*` headers). The topic must exist.
   */
  deadLetterQueueTopic?: string;
}

const TOPIC_NAME = /^[a-zA-Z0-9._-]{1,249}$/;
const show = (v: unknown) => (typeof v === 'function' ? 'a function' : (JSON.stringify(v) ?? String(v)));

const CONTINUE = () => 'continue' as const;
const FAIL = () => 'fail' as const;

/** Pushes a line per problem onto `problems`; the result is meaningful only when none was added. */
export function resolveExceptionHandlers(
  settings: ExceptionHandlerSettings,
  problems: string[],
): ResolvedExceptionHandlers {
  const { deserializationExceptionHandler: d, processingExceptionHandler: p } = settings;
  const { productionExceptionHandler: w, errors } = settings;

  let legacyTopic: string | undefined;
  let deserialization: DeserializationExceptionHandler = FAIL;
  let deserializationName = 'logAndFail';
  if (typeof d === 'function') {
    deserialization = d;
    deserializationName = 'custom';
  } else if (d === 'logAndContinue') {
    deserialization = CONTINUE;
    deserializationName = d;
  } else if (
    typeof d === 'object' &&
    d !== null &&
    typeof d.deadLetterTopic === 'string' &&
    d.deadLetterTopic
  ) {
    deserialization = CONTINUE;
    deserializationName = 'logAndContinue';
    legacyTopic = d.deadLetterTopic;
  } else if (d !== undefined && d !== 'logAndFail') {
    problems.push(
      `"deserializationExceptionHandler" must be 'logAndFail' (default), 'logAndContinue' or a function (error, context) => 'continue' | 'fail', got ${show(d)}`,
    );
  }

  let processing: ProcessingExceptionHandler = FAIL;
  let processingName = 'logAndFail';
  if (typeof p === 'function') {
    processing = p;
    processingName = 'custom';
  } else if (p === 'logAndContinue') {
    processing = CONTINUE;
    processingName = p;
  } else if (p !== undefined && p !== 'logAndFail') {
    problems.push(
      `"processingExceptionHandler" must be 'logAndFail' (default), 'logAndContinue' or a function (error, context) => 'continue' | 'fail', got ${show(p)}`,
    );
  }

  let production: ProductionExceptionHandler = defaultProductionHandler;
  let productionName = 'fail';
  if (typeof w === 'function') {
    production = w;
    productionName = 'custom';
  } else if (w === 'continue') {
    production = CONTINUE;
    productionName = w;
  } else if (w !== undefined && w !== 'fail') {
    const hint =
      w === 'logAndContinue' || w === 'logAndFail'
        ? ` (use '${w === 'logAndFail' ? 'fail' : 'continue'}')`
        : '';
    problems.push(
      `"productionExceptionHandler" must be 'fail' (default), 'continue' or a function (error, context) => 'continue' | 'fail' | 'retry', got ${show(w)}${hint}`,
    );
  }

  let deadLetterQueueTopic: string | undefined;
  if (errors !== undefined) {
    if (typeof errors !== 'object' || errors === null) {
      problems.push(`"errors" must be an object { deadLetterQueueTopic?: string }, got ${show(errors)}`);
    } else {
      for (const k of Object.keys(errors))
        if (k !== 'deadLetterQueueTopic')
          problems.push(`unknown key "errors.${k}"; the one key is deadLetterQueueTopic`);
      const topic = errors.deadLetterQueueTopic;
      if (topic !== undefined && (typeof topic !== 'string' || !TOPIC_NAME.test(topic))) {
        problems.push(
          `"errors.deadLetterQueueTopic" must be a topic name (letters, digits, ".", "_", "-"), got ${show(topic)}`,
        );
      } else deadLetterQueueTopic = topic;
    }
  }
  if (legacyTopic !== undefined) {
    if (deadLetterQueueTopic !== undefined && deadLetterQueueTopic !== legacyTopic) {
      problems.push(
        `"deserializationExceptionHandler.deadLetterTopic" (${legacyTopic}) and "errors.deadLetterQueueTopic" (${deadLetterQueueTopic}) differ: there is one dead-letter queue; set only errors.deadLetterQueueTopic and deserializationExceptionHandler: 'logAndContinue'`,
      );
    }
    deadLetterQueueTopic ??= legacyTopic;
  }
  return {
    deserialization,
    processing,
    production,
    names: { deserialization: deserializationName, processing: processingName, production: productionName },
    deadLetterQueueTopic,
  };
}

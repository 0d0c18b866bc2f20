// What a failed send means, as Kafka Streams' RecordCollector sorts it (recordSendError): some
// errors go to the production exception handler, some it never sees. kafkajs wraps the broker's
// answer (after its own retries, in transactions): each test looks through the chain of causes.
import { RecordSendError } from '../errors.ts';
import { isFencedError, isGroupGenerationError, isRetriableError } from './error-kinds.ts';

interface ErrorLike {
  name?: string;
  type?: string;
  cause?: unknown;
  originalError?: unknown;
}

function* chain(err: unknown): Generator<ErrorLike> {
  let e = err as ErrorLike | undefined;
  for (let depth = 0; e && depth < 10; depth++, e = (e.originalError ?? e.cause) as ErrorLike | undefined)
    yield e;
}

/**
 * Left to the runtime as they are: the broker denied the client (ACLs, authentication: fatal,
 * with the ACL to grant, kafka/authorization.ts), or the producer can go on no more: fenced by
 * another, or its sequence numbers or epoch no longer the broker's (acks lost on the way); the
 * runtime rolls the task back with a new producer. Java does not ask the handler for these
 * either (RecordCollectorImpl: OutOfOrderSequenceException, InvalidProducerEpochException and
 * InvalidPidMappingException are a TaskMigratedException there).
 */
const PASSED_ON = new Set([
  'OUT_OF_ORDER_SEQUENCE_NUMBER',
  'INVALID_PRODUCER_EPOCH',
  'INVALID_PRODUCER_ID_MAPPING',
  'TOPIC_AUTHORIZATION_FAILED',
  'CLUSTER_AUTHORIZATION_FAILED',
  'TRANSACTIONAL_ID_AUTHORIZATION_FAILED',
  'GROUP_AUTHORIZATION_FAILED',
  'SASL_AUTHENTICATION_FAILED',
]);

/** Fatal without asking the handler, as Java's isFatalException: nothing it answers could help. */
const FATAL = new Set([
  'INVALID_TOPIC_EXCEPTION',
  'UNKNOWN_SERVER_ERROR',
  'SECURITY_DISABLED',
  'OFFSET_METADATA_TOO_LARGE',
]);

const TOO_LARGE = new Set(['MESSAGE_TOO_LARGE', 'RECORD_LIST_TOO_LARGE']);

/**
 * `pass`: not the handler's (see PASSED_ON), and any error that is not the client's (a bug);
 * `fatal`: stops the thread without asking; `handled`: the production exception handler decides.
 */
export type SendErrorKind = 'pass' | 'fatal' | 'handled';

/** The broker's error code nearest the surface of the chain, if any. */
export function brokerErrorCode(err: unknown): string | undefined {
  for (const e of chain(err)) if (typeof e.type === 'string') return e.type;
  return undefined;
}

export function sendErrorKind(err: unknown): SendErrorKind {
  if (isFencedError(err) || isGroupGenerationError(err)) return 'pass';
  let client = false;
  for (const e of chain(err)) {
    if (e.type !== undefined && PASSED_ON.has(e.type)) return 'pass';
    if (e.name === 'KafkaJSSASLAuthenticationError') return 'pass';
    if (e.type !== undefined && FATAL.has(e.type)) return 'fatal';
    if (e.name?.startsWith('KafkaJS') || e.type !== undefined) client = true;
  }
  return client ? 'handled' : 'pass';
}

/** The broker refused the records as too large: Java's producer splits such a batch and sends again. */
export function isTooLargeError(err: unknown): boolean {
  for (const e of chain(err)) if (e.type !== undefined && TOO_LARGE.has(e.type)) return true;
  return false;
}

/** The error the production handler sees for one record of a failed send. */
export function recordSendError(err: unknown, topic: string, partition: number | undefined): RecordSendError {
  const retriable = !isTooLargeError(err) && isRetriableError(err);
  return new RecordSendError(topic, partition, brokerErrorCode(err), retriable, { cause: err });
}

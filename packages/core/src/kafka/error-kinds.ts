// What a kafkajs error means for the runtime. kafkajs wraps errors (after its own retries, and in
// transactions), so each test looks through the whole chain of causes.

interface KafkaJsErrorLike {
  name?: string;
  type?: string;
  message?: string;
  retriable?: boolean;
  cause?: unknown;
  originalError?: unknown;
}

function* causeChain(err: unknown): Generator<KafkaJsErrorLike> {
  for (let e = err as KafkaJsErrorLike | undefined; e; e = (e.originalError ?? e.cause) as KafkaJsErrorLike) {
    yield e;
  }
}

const FENCED = new Set([
  'INVALID_PRODUCER_EPOCH',
  'PRODUCER_FENCED',
  'TRANSACTIONAL_ID_AUTHORIZATION_FAILED',
  'INVALID_PRODUCER_ID_MAPPING',
]);

/** True when the error means another producer took over this transactional id. */
export function isFencedError(err: unknown): boolean {
  for (const e of causeChain(err)) {
    if (e.type && FENCED.has(e.type)) return true;
    if (/fenced|epoch/i.test(String(e.message ?? ''))) return true;
  }
  return false;
}

/**
 * Worth another try: a broker that is away or restarting, a coordinator that moved, a request that
 * timed out. kafkajs marks these `retriable`, also when its own retries ran out (the cause then
 * carries the flag).
 */
export function isRetriableError(err: unknown): boolean {
  for (const e of causeChain(err)) {
    if (e.retriable === true || e.name === 'KafkaJSNumberOfRetriesExceeded') return true;
  }
  return false;
}

const PRODUCER_STATE = new Set([
  'OUT_OF_ORDER_SEQUENCE_NUMBER',
  'DUPLICATE_SEQUENCE_NUMBER',
  'UNKNOWN_PRODUCER_ID',
  'INVALID_TXN_STATE',
]);

/**
 * The broker and the producer disagree on the producer's sequence numbers or transaction state:
 * only a new producer (a fresh epoch) gets out of it.
 */
export function isProducerStateError(err: unknown): boolean {
  for (const e of causeChain(err)) if (e.type && PRODUCER_STATE.has(e.type)) return true;
  return false;
}

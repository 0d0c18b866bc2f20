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

const FENCED = new Set(['INVALID_PRODUCER_EPOCH', 'PRODUCER_FENCED', 'INVALID_PRODUCER_ID_MAPPING']);

/** True when the error means another producer took over this transactional id. */
export function isFencedError(err: unknown): boolean {
  for (const e of causeChain(err)) {
    if (e.type && FENCED.has(e.type)) return true;
    if (/fenced|epoch/i.test(String(e.message ?? ''))) return true;
  }
  return false;
}

const LEFT_GROUP = new Set(['ILLEGAL_GENERATION', 'UNKNOWN_MEMBER_ID', 'FENCED_INSTANCE_ID']);

/**
 * True when the group coordinator refused transactional offsets because the consumer is no longer
 * in the group's current generation (exactly_once_v2; Kafka Streams' TaskMigratedException): its
 * tasks may be someone else's now.
 */
export function isGroupGenerationError(err: unknown): boolean {
  for (const e of causeChain(err)) if (e.type && LEFT_GROUP.has(e.type)) return true;
  return false;
}

/**
 * kafkajs marks these non-retriable, but they pass: its own retries ran out, or the group
 * coordinator was not found (it moves while a broker restarts).
 */
const RETRIABLE_NAMES = new Set(['KafkaJSNumberOfRetriesExceeded', 'KafkaJSGroupCoordinatorNotFound']);

/**
 * Worth another try: a broker that is away or restarting, a coordinator that moved, a request that
 * timed out. kafkajs marks these `retriable`, also when its own retries ran out (the cause then
 * carries the flag).
 */
export function isRetriableError(err: unknown): boolean {
  for (const e of causeChain(err)) {
    if (e.retriable === true || (e.name !== undefined && RETRIABLE_NAMES.has(e.name))) return true;
  }
  return false;
}

const REFUSED_RECORDS = new Set([
  'MESSAGE_TOO_LARGE',
  'RECORD_LIST_TOO_LARGE',
  'INVALID_RECORD',
  'INVALID_TIMESTAMP',
  'CORRUPT_MESSAGE',
]);

/**
 * The broker refused the records themselves (too large, invalid); a refusal for want of an ACL is
 * an authorization failure (kafka/authorization.ts), fatal as in Kafka Streams: sending them again
 * fails the same way, with any producer. Any other failure of a send or a commit may have left
 * the producer in a state it cannot know.
 */
export function isRefusedRecordsError(err: unknown): boolean {
  for (const e of causeChain(err)) if (e.type && REFUSED_RECORDS.has(e.type)) return true;
  return false;
}

/** True when the error, or an error it wraps, carries the broker's error code `type`. */
export function hasErrorType(err: unknown, type: string): boolean {
  for (const e of causeChain(err)) if (e.type === type) return true;
  return false;
}

export interface RetryOptions {
  /** Give up (throw the last error) once this long has passed since the first try. */
  timeoutMs: number;
  /** The first pause; each next one doubles, up to maxBackoffMs. */
  backoffMs: number;
  maxBackoffMs: number;
}

/**
 * Runs `attempt` again while it fails with the broker error `type` (or one of them; anywhere in the cause chain),
 * for answers that mean "not yet" and that kafkajs does not retry itself.
 */
export async function retryWhileErrorType<T>(
  type: string | readonly string[],
  attempt: () => Promise<T>,
  { timeoutMs, backoffMs, maxBackoffMs }: RetryOptions,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let pause = backoffMs; ; pause = Math.min(pause * 2, maxBackoffMs)) {
    try {
      return await attempt();
    } catch (error) {
      const types = typeof type === 'string' ? [type] : type;
      if (!types.some((t) => hasErrorType(error, t)) || Date.now() + pause > deadline) throw error;
      await new Promise((r) => setTimeout(r, pause));
    }
  }
}

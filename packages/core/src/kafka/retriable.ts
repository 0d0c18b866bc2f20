// Which kafkajs errors are worth another try: a broker that is away or restarting, a coordinator
// that moved, a request that timed out. kafkajs marks these `retriable`, also when its own retries
// ran out (the cause then carries the flag).
export function isRetriableError(err: unknown): boolean {
  for (let e = err as { name?: string; retriable?: boolean; cause?: unknown; originalError?: unknown }; e; ) {
    if (e.retriable === true || e.name === 'KafkaJSNumberOfRetriesExceeded') return true;
    e = (e.originalError ?? e.cause) as typeof e;
  }
  return false;
}

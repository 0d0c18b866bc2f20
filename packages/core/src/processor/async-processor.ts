// Asynchronous processors (issue 41): a processor whose process() awaits another service (an HTTP
// API, a database) while the task goes on with other records. See docs/async-processing.md.
import { ConfigError } from '../errors.ts';
import type { ProcessorContext, RecordMetadata } from './processor.ts';
import type { Record } from './record.ts';

/**
 * Which records wait for which. `key` (the default): records of one key run one after another,
 * different keys at the same time, and a key's results leave in its input order. `partition`:
 * the same, and every result also leaves in the order of the task's input.
 */
export type AsyncOrdering = 'key' | 'partition';

export interface AsyncOptions {
  /** Records of this operator in flight per task; the task takes no more until one finishes. Default 100. */
  maxInFlight?: number;
  /**
   * A call that has not finished after this many milliseconds fails with an AsyncTimeoutError
   * (its `signal` aborts), which goes to the processing exception handler. Default: no timeout.
   */
  timeoutMs?: number;
  ordering?: AsyncOrdering;
  /** The operator's name (else generated). */
  name?: string;
}

/** What one asynchronous call gets besides its record. */
export interface AsyncCall {
  /** Aborted on a timeout, and when the task abandons the record (rollback, close). */
  readonly signal: AbortSignal;
  /**
   * Calls `listener` once when the call is aborted, as `signal` aborts (at once if it already
   * was); not after the call finished. For a client with an abort of its own, a lighter way than
   * a listener on `signal`: on Node 20 adding and removing an `'abort'` listener cost about 30 µs
   * of CPU per call, as much as the HTTP call itself (bench/async-http.bench.ts, 2026-12-06).
   */
  onAbort(listener: (reason: unknown) => void): void;
  /** The input record's topic, partition and offset. */
  readonly metadata: RecordMetadata | undefined;
}

/**
 * A processor whose `process` returns a promise of the records to forward. The task runs up to
 * `maxInFlight` of them at once and forwards their results in the order `ordering` promises, each
 * with its input record's context. It forwards by returning records, not through the context:
 * the context is shared by the calls in flight, so it could not tell whose output a record is.
 * Its stores may be read and written for the record's key.
 */
export interface AsyncProcessor<KIn, VIn, KOut = never, VOut = never> {
  init?(context: ProcessorContext<KOut, VOut>): void;
  process(
    record: Record<KIn, VIn>,
    call: AsyncCall,
  ): Promise<Iterable<Record<KOut, VOut>> | undefined> | Promise<void>;
  close?(): void | Promise<void>;
}

export type AsyncProcessorSupplier<KIn, VIn, KOut = never, VOut = never> = () => AsyncProcessor<
  KIn,
  VIn,
  KOut,
  VOut
>;

export interface ResolvedAsyncOptions {
  readonly maxInFlight: number;
  readonly timeoutMs: number | undefined;
  readonly ordering: AsyncOrdering;
}

/** Checks the options once, where the operator is added, with errors that say what to change. */
export function resolveAsyncOptions(
  options: AsyncOptions = {},
  operator = 'async operator',
): ResolvedAsyncOptions {
  const { maxInFlight = 100, timeoutMs, ordering = 'key' } = options;
  if (!Number.isInteger(maxInFlight) || maxInFlight < 1)
    throw new ConfigError(`${operator}: maxInFlight must be an integer >= 1, got ${maxInFlight}`);
  if (timeoutMs !== undefined && !(Number.isFinite(timeoutMs) && timeoutMs > 0))
    throw new ConfigError(
      `${operator}: timeoutMs must be a number > 0 (or left out for no timeout), got ${timeoutMs}`,
    );
  if (ordering !== 'key' && ordering !== 'partition')
    throw new ConfigError(`${operator}: ordering must be 'key' or 'partition', got '${String(ordering)}'`);
  return { maxInFlight, timeoutMs, ordering };
}

const ASYNC = Symbol('kstreams.async');

/** Marks the processors a supplier makes as asynchronous: the task runs them through an AsyncLane. */
export function asyncSupplier<KIn, VIn, KOut, VOut>(
  supplier: AsyncProcessorSupplier<KIn, VIn, KOut, VOut>,
  options: ResolvedAsyncOptions,
): () => AsyncProcessor<KIn, VIn, KOut, VOut> {
  return () => {
    const processor = supplier();
    if (processor === null || typeof processor !== 'object' || typeof processor.process !== 'function')
      return processor; // the task's own check reports it
    Object.defineProperty(processor, ASYNC, { value: options, enumerable: false });
    return processor;
  };
}

/** The options of an asynchronous processor; undefined for an ordinary one. */
export function asyncOptionsOf(processor: object): ResolvedAsyncOptions | undefined {
  return (processor as { [ASYNC]?: ResolvedAsyncOptions })[ASYNC];
}

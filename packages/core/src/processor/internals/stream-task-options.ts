import type { Logger } from 'pino';
import type { ThreadCache } from '../../state/internals/thread-cache.ts';
import type { StateStore } from '../../state/state-store.ts';
import type { TaskId } from '../task-id.ts';
import type { TimestampExtractor } from '../timestamp-extractor.ts';
import type { Topology } from '../topology.ts';
import type { ErrorHandlingOptions } from './exception-handling.ts';
import type { ProcessorStateManagerOptions } from './processor-state-manager.ts';
import type { RecordCollector } from './record-collector.ts';

/** The task's stores (factory, buffers, checkpoint, default serdes), for its ProcessorStateManager. */
type StateOptions = Omit<
  ProcessorStateManagerOptions,
  'taskId' | 'applicationId' | 'partition' | 'onCommitRequested'
>;

export interface StreamTaskOptions extends StateOptions {
  id: TaskId;
  applicationId: string;
  topology: Topology;
  collector: RecordCollector;
  /** Told how many punctuators fired at once (the punctuate-rate metric). */
  onPunctuate?: (punctuators: number) => void;
  /**
   * Told of each record an operator dropped (late for a closed window, a null key): the runtime's
   * dropped-records metric, which the exception handlers' drops reach through `errorHandling`.
   */
  onOperatorDrop?: () => void;
  /** An async operator at maxInFlight has room again, or all finished: give the task records, flush. */
  onAsyncProgress?: () => void;
  /** Told of each finished call of an async operator (its ms; true for a timeout): the async metrics. */
  onAsyncCall?: (latencyMs: number, timedOut: boolean) => void;
  /** Exception handlers (default: all fail) and the DLQ, drop counting, the sinks' size limit. */
  errorHandling?: ErrorHandlingOptions;
  logger?: Logger;
  /** Wall clock; default Date.now. */
  now?: () => number;
  /** The global stores (kept by the global stream thread), by name; any processor may read them. */
  globalStore?: (storeName: string) => StateStore | undefined;
  /** The config's defaultTimestampExtractor; undefined: FailOnInvalidTimestamp. */
  defaultTimestampExtractor?: TimestampExtractor | undefined;
  /** The instance's record cache (`statestoreCacheMaxBytes`); none: every update is forwarded. */
  threadCache?: ThreadCache;
}

// The task errors that no retry cures, as Kafka Streams lets them kill the stream thread (a
// StreamsException, not a TaskMigrated/TaskCorrupted one): the uncaught exception handler decides
// at once, instead of the task rolling back and failing the same way 5 times, or for the
// 5-minute task timeout when the failure came while committing.
import { StoreDiskFullError } from '@kstreams/state-store';
import { DeserializationError, ProductionError, TimestampExtractorError } from '../errors.ts';

export function isFatalTaskError(error: unknown): boolean {
  // The same record would fail again; the production handler said fail.
  if (
    error instanceof DeserializationError ||
    error instanceof TimestampExtractorError ||
    error instanceof ProductionError
  )
    return true;
  // A full disk under the state directory (Java: ProcessorStateException): the operator must act.
  for (let e = error, depth = 0; e instanceof Error && depth < 10; e = e.cause, depth++)
    if (e instanceof StoreDiskFullError) return true;
  return false;
}

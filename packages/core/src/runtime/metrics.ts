/** Counters an operator reads from `app.metrics()`; each names an event the logs also report. */
export interface StreamsMetrics {
  processedRecords: number;
  skippedRecords: number;
  deadLetterRecords: number;
  commits: number;
  rollbacks: number;
  fencedTasks: number;
  restoredRecords: number;
  /** Tasks the watchdog found stalled and recreated. */
  stalledTasks: number;
  /**
   * Records processed while an input partition of their task had no data and its idle time
   * (maxTaskIdleMs) was over: Kafka Streams' enforced-processing-total, over all tasks.
   */
  enforcedProcessing: number;
  /** Calls of async operators (mapValuesAsync, processAsync, ...) finished: a result, an error or a timeout. */
  asyncCompleted: number;
  /** Calls of async operators that ran past their `timeoutMs`. */
  asyncTimeouts: number;
  /** Records taken by async operators and not yet released, now, over the running tasks. */
  asyncInFlight: number;
  /** Standby tasks on this instance now (Kafka Streams' standby-updating-tasks). */
  standbyTasks: number;
  /** Their changelog lag now, summed over their changelog partitions whose end is known. */
  standbyRecordsLag: number;
  /** Changelog records applied by standby tasks (Kafka Streams' update-total, over all of them). */
  standbyRecordsUpdated: number;
}

export function newMetrics(): StreamsMetrics {
  return {
    processedRecords: 0,
    skippedRecords: 0,
    deadLetterRecords: 0,
    commits: 0,
    rollbacks: 0,
    fencedTasks: 0,
    restoredRecords: 0,
    stalledTasks: 0,
    enforcedProcessing: 0,
    asyncCompleted: 0,
    asyncTimeouts: 0,
    asyncInFlight: 0,
    standbyTasks: 0,
    standbyRecordsLag: 0,
    standbyRecordsUpdated: 0,
  };
}

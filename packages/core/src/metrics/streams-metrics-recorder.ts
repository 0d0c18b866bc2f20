// What the runtime records, at Kafka Streams' levels (thread, task, store, restore, transactions),
// in plain numbers and sensors that the Prometheus registry reads at scrape time. Each call is a
// few additions on a per-batch or per-commit path; only asyncCalled runs per record (per call of
// an async operator, which costs far more than its few additions).
import type { MetricsRecordingLevel } from '../config/streams-config.ts';
import { Sensor } from './sensor.ts';

export interface TaskMetricsValues {
  readonly process: Sensor;
  /** Kafka Streams' enforced-processing-rate/-total: records processed without waiting any longer for an empty partition. */
  readonly enforcedProcessing: Sensor;
  droppedRecordsTotal: number;
  rollbacksTotal: number;
  /** When the task's last commit succeeded (ms since the epoch), 0 if never. */
  lastCommitMs: number;
  /** Finished calls of the task's async operators, with their ms (total: calls since the task began here). */
  readonly asyncCalls: Sensor;
  asyncTimeoutsTotal: number;
}

export interface RestoreProgress {
  taskId: string;
  storeName: string;
  topic: string;
  partition: number;
  startOffset: number;
  endOffset: number;
  /** Records restored so far, over the whole restore. */
  restored: number;
  /** End offset minus the position reached. */
  remaining: number;
  done: boolean;
}

export interface StoreOperationMetrics {
  readonly put: Sensor;
  readonly get: Sensor;
  readonly range: Sensor;
  readonly flush: Sensor;
}

export class StreamsMetricsRecorder {
  readonly enabled: boolean;
  readonly debug: boolean;
  readonly process = new Sensor();
  readonly poll = new Sensor();
  readonly commit = new Sensor();
  readonly punctuate = new Sensor();
  readonly transactionCommit = new Sensor();
  transactionAbortsTotal = 0;
  readonly tasks = new Map<string, TaskMetricsValues>();
  /** Key `taskId/storeName/partition`: the last restore of each store, kept after it ends. */
  readonly restores = new Map<string, RestoreProgress>();
  /** Key `taskId\0storeName`. */
  readonly stores = new Map<string, { taskId: string; storeName: string; ops: StoreOperationMetrics }>();
  /** Key `taskId\0node`: source nodes' process sensors (debug level). */
  readonly sourceNodes = new Map<string, { taskId: string; node: string; process: Sensor }>();
  /** The log end offset of each input partition, from the last fetch that told it. */
  readonly highWatermarks = new Map<string, { topic: string; partition: number; offset: number }>();
  lastCommitMs = 0;
  recordsRestoredTotal = 0;
  /**
   * Kafka Streams' task-level update-rate/-total (KIP-869) per standby task: changelog records the
   * standby applied to its stores; kept apart from `tasks` so a standby shows no process metrics.
   */
  readonly standbyUpdates = new Map<string, Sensor>();
  /** Changelog records applied by standby tasks since the app started (over all of them). */
  standbyRecordsUpdatedTotal = 0;

  constructor(readonly level: MetricsRecordingLevel) {
    this.enabled = level !== 'off';
    this.debug = level === 'debug';
  }

  task(taskId: string): TaskMetricsValues {
    let t = this.tasks.get(taskId);
    if (t === undefined) {
      t = {
        process: new Sensor(),
        enforcedProcessing: new Sensor(),
        droppedRecordsTotal: 0,
        rollbacksTotal: 0,
        lastCommitMs: 0,
        asyncCalls: new Sensor(),
        asyncTimeoutsTotal: 0,
      };
      this.tasks.set(taskId, t);
    }
    return t;
  }

  /**
   * A fetched batch reached its running task. kafkajs polls inside its own loop and hands over
   * one batch per partition, so Kafka Streams' poll-rate is counted in those hand-overs.
   */
  polled(): void {
    if (this.enabled) this.poll.count();
  }

  /** One processing turn of a task: `records` in `ms`. */
  processed(taskId: string, records: number, ms: number): void {
    if (!this.enabled || records === 0) return;
    this.process.record(records, ms);
    this.task(taskId).process.record(records);
  }

  /** `records` of one processing turn of a task were processed under enforced processing. */
  enforcedProcessing(taskId: string, records: number): void {
    if (this.enabled && records > 0) this.task(taskId).enforcedProcessing.count(records);
  }

  /** A call of an async operator of the task finished after `ms` (a timeout when `timedOut`). */
  asyncCalled(taskId: string, ms: number, timedOut: boolean): void {
    if (!this.enabled) return;
    const t = this.task(taskId);
    t.asyncCalls.record(1, ms);
    if (timedOut) t.asyncTimeoutsTotal++;
  }

  punctuated(punctuators: number): void {
    if (this.enabled && punctuators > 0) this.punctuate.record(punctuators);
  }

  committed(taskIds: string[], ms: number): void {
    if (!this.enabled || taskIds.length === 0) return;
    const now = Date.now();
    this.commit.record(1, ms);
    this.lastCommitMs = now;
    for (const id of taskIds) this.task(id).lastCommitMs = now;
  }

  transactionCommitted(ms: number): void {
    if (this.enabled) this.transactionCommit.record(1, ms);
  }

  transactionAborted(): void {
    if (this.enabled) this.transactionAbortsTotal++;
  }

  rolledBack(taskId: string): void {
    if (this.enabled) this.task(taskId).rollbacksTotal++;
  }

  dropped(taskId: string): void {
    if (this.enabled) this.task(taskId).droppedRecordsTotal++;
  }

  fetched(topic: string, partition: number, highWatermark: number): void {
    if (!this.enabled || !Number.isFinite(highWatermark) || highWatermark < 0) return;
    const key = `${topic}\0${partition}`;
    const known = this.highWatermarks.get(key);
    if (known) known.offset = highWatermark;
    else this.highWatermarks.set(key, { topic, partition, offset: highWatermark });
  }

  highWatermark(topic: string, partition: number): number | undefined {
    return this.highWatermarks.get(`${topic}\0${partition}`)?.offset;
  }

  restoreStarted(p: Omit<RestoreProgress, 'restored' | 'remaining' | 'done'>): RestoreProgress {
    const progress: RestoreProgress = {
      ...p,
      restored: 0,
      remaining: Math.max(0, p.endOffset - p.startOffset),
      done: p.endOffset <= p.startOffset,
    };
    if (this.enabled) this.restores.set(`${p.taskId}/${p.storeName}/${p.partition}`, progress);
    return progress;
  }

  restoredBatch(progress: RestoreProgress, records: number, position: number): void {
    progress.restored += records;
    progress.remaining = Math.max(0, progress.endOffset - position);
    this.recordsRestoredTotal += records;
  }

  restoreEnded(progress: RestoreProgress): void {
    progress.remaining = 0;
    progress.done = true;
  }

  /**
   * A standby task applied `records` changelog records to its stores (the changelog reader calls
   * this after each `StandbyTask.update`); its high watermark goes through `fetched` as an
   * active's, which gives the standby's lag.
   */
  standbyUpdated(taskId: string, records: number): void {
    if (!this.enabled || records <= 0) return;
    let sensor = this.standbyUpdates.get(taskId);
    if (sensor === undefined) {
      sensor = new Sensor();
      this.standbyUpdates.set(taskId, sensor);
    }
    sensor.count(records);
    this.standbyRecordsUpdatedTotal += records;
  }

  /** The standby was closed or promoted: its update metrics go, as Kafka Streams removes a closed task's. */
  standbyClosed(taskId: string): void {
    this.standbyUpdates.delete(taskId);
  }

  /** Kafka Streams' processor-node process-rate/total, which it records for source nodes only. */
  sourceNodeProcessed(taskId: string, node: string, records: number): void {
    if (!this.debug || records === 0) return;
    const key = `${taskId}\0${node}`;
    let entry = this.sourceNodes.get(key);
    if (entry === undefined) {
      entry = { taskId, node, process: new Sensor() };
      this.sourceNodes.set(key, entry);
    }
    entry.process.record(records);
  }

  /** Sensors of one store of one task; undefined below debug level, so that info costs nothing. */
  storeOperations(taskId: string, storeName: string): StoreOperationMetrics | undefined {
    if (!this.debug) return undefined;
    const key = `${taskId}\0${storeName}`;
    let entry = this.stores.get(key);
    if (entry === undefined) {
      entry = {
        taskId,
        storeName,
        ops: { put: new Sensor(), get: new Sensor(), range: new Sensor(), flush: new Sensor() },
      };
      this.stores.set(key, entry);
    }
    return entry.ops;
  }
}

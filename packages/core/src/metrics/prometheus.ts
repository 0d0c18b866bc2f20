// The app's prom-client registry: every value is read from the recorder when scraped, so the
// runtime's hot path never touches prom-client. Names are Kafka Streams' metric names under their
// group, in Prometheus' snake case (docs: the metrics table of docs/observability.md).
import { createRequire } from 'node:module';
import type { Registry } from 'prom-client';
import type { StreamsMetricsRecorder } from './streams-metrics-recorder.ts';

export interface MetricsSources {
  applicationId: string;
  threadId: string;
  recorder: StreamsMetricsRecorder;
  /** The app's state (Kafka Streams' `state` of the client). */
  state(): string;
  /** Each running task's input partitions and the position its processing reached. */
  positions(): Array<{ taskId: string; topic: string; partition: number; position: number }>;
  /** Records in flight in each running task with async operators (StreamTask.asyncMetrics). */
  asyncInFlight(): Array<{ taskId: string; inFlight: number }>;
  /**
   * The standby tasks with their changelog partitions' lag, as `metadataForLocalThreads()` lists
   * them (its `standbyTasks`): read at scrape time, so the runtime records nothing for them.
   */
  standbys?(): readonly StandbyLagSource[];
}

/** A standby task as the metrics read it: local-metadata.ts' TaskMetadata fits it as it is. */
export interface StandbyLagSource {
  taskId: string;
  topicPartitions: ReadonlyArray<{ topic: string; partition: number; lag: number | null }>;
}

/** What `app.metrics()` says of the standbys: how many, their summed changelog lag, records applied. */
export function standbyMetrics(
  standbys: readonly StandbyLagSource[],
  recorder: StreamsMetricsRecorder,
): { standbyTasks: number; standbyRecordsLag: number; standbyRecordsUpdated: number } {
  let lag = 0;
  for (const s of standbys) for (const p of s.topicPartitions) lag += p.lag ?? 0;
  return {
    standbyTasks: standbys.length,
    standbyRecordsLag: lag,
    standbyRecordsUpdated: recorder.standbyRecordsUpdatedTotal,
  };
}

export const APP_STATES = [
  'CREATED',
  'REBALANCING',
  'RUNNING',
  'PENDING_SHUTDOWN',
  'NOT_RUNNING',
  'PENDING_ERROR',
  'ERROR',
] as const;

type Labels = Record<string, string | number>;
type Read = (set: (labels: Labels, value: number) => void) => void;
type TaskValues = ReturnType<StreamsMetricsRecorder['task']>;

/**
 * prom-client is loaded when the registry is first asked for, not with core: loading it takes
 * 40-140 ms, a third of a start's module loading (bench/rolling-restart's kill -9 restart).
 */
const promClient = (): typeof import('prom-client') => createRequire(import.meta.url)('prom-client');

/** The registry of `src`, made at the first call. */
export function lazyMetricsRegistry(src: MetricsSources): () => Registry {
  let registry: Registry | undefined;
  return () => {
    registry ??= createMetricsRegistry(src);
    return registry;
  };
}

export function createMetricsRegistry(src: MetricsSources): Registry {
  const { Counter, Gauge, Registry } = promClient();
  const registry = new Registry();
  registry.setDefaultLabels({ application_id: src.applicationId });
  const r = src.recorder;
  const thread = { thread_id: src.threadId };
  const gauge = (name: string, help: string, labelNames: string[], read: Read) =>
    new Gauge({
      name,
      help,
      labelNames,
      registers: [registry],
      collect() {
        this.reset();
        read((labels, value) => this.set(labels, Number.isNaN(value) ? Number.NaN : value));
      },
    });
  const counter = (name: string, help: string, labelNames: string[], read: Read) =>
    new Counter({
      name,
      help,
      labelNames,
      registers: [registry],
      collect() {
        this.reset();
        read((labels, value) => {
          if (value > 0) this.inc(labels, value);
          else this.inc(labels, 0);
        });
      },
    });
  /**
   * The metrics of one kind of entry (the thread, each task, each restore, ...): `entries` gives
   * each one's labels and what its values are read from; each metric of the family reads one value.
   */
  const family = <E>(labelNames: string[], entries: () => Iterable<readonly [Labels, E]>) => {
    const read =
      (value: (entry: E) => number): Read =>
      (set) => {
        for (const [labels, entry] of entries()) set(labels, value(entry));
      };
    return {
      gauge: (name: string, help: string, value: (entry: E) => number) =>
        gauge(name, help, labelNames, read(value)),
      counter: (name: string, help: string, value: (entry: E) => number) =>
        counter(name, help, labelNames, read(value)),
    };
  };

  const t = 'kstreams_stream_thread_';
  const threads = family(['thread_id'], () => [[thread, r]] as const);
  threads.counter(`${t}process_total`, 'Records processed by the thread', (x) => x.process.total);
  threads.gauge(`${t}process_rate`, 'Records processed per second', (x) => x.process.rate());
  threads.gauge(`${t}process_latency_avg`, 'Average ms to process a record (per fetched batch)', (x) =>
    x.process.avg(),
  );
  threads.gauge(`${t}process_latency_max`, 'Largest ms per record of a fetched batch', (x) =>
    x.process.max(),
  );
  threads.gauge(
    `${t}poll_rate`,
    'Fetched batches handed to the thread per second (kafkajs polls inside its loop)',
    (x) => x.poll.rate(),
  );
  threads.counter(
    `${t}commit_total`,
    'Commits of the thread (all its due tasks at once)',
    (x) => x.commit.total,
  );
  threads.gauge(`${t}commit_rate`, 'Commits per second', (x) => x.commit.rate());
  threads.gauge(`${t}commit_latency_avg`, 'Average ms of a commit', (x) => x.commit.avg());
  threads.gauge(`${t}commit_latency_max`, 'Largest ms of a commit', (x) => x.commit.max());
  threads.gauge(`${t}punctuate_rate`, 'Punctuator calls per second', (x) => x.punctuate.rate());
  threads.counter(`${t}punctuate_total`, 'Punctuator calls', (x) => x.punctuate.total);
  threads.counter(
    `${t}transaction_commit_total`,
    'exactly_once: transactions committed',
    (x) => x.transactionCommit.total,
  );
  threads.counter(
    `${t}transaction_abort_total`,
    'exactly_once: transactions aborted',
    (x) => x.transactionAbortsTotal,
  );
  threads.gauge(`${t}transaction_commit_latency_avg`, 'exactly_once: average ms of a task commit', (x) =>
    x.transactionCommit.avg(),
  );
  threads.gauge(`${t}transaction_commit_latency_max`, 'exactly_once: largest ms of a task commit', (x) =>
    x.transactionCommit.max(),
  );

  const k = 'kstreams_stream_task_';
  const taskLabels = ['thread_id', 'task_id'];
  const eachTask = function* (only: (v: TaskValues) => boolean = () => true) {
    for (const [id, v] of r.tasks) if (only(v)) yield [{ ...thread, task_id: id }, v] as const;
  };
  const tasks = family(taskLabels, () => eachTask());
  tasks.gauge(`${k}process_rate`, 'Records processed per second by the task', (v) => v.process.rate());
  tasks.counter(`${k}process_total`, 'Records processed by the task', (v) => v.process.total);
  tasks.gauge(
    `${k}enforced_processing_rate`,
    'Records processed per second while an empty input partition of the task was no longer waited for',
    (v) => v.enforcedProcessing.rate(),
  );
  tasks.counter(
    `${k}enforced_processing_total`,
    'Records processed while an empty input partition of the task was no longer waited for (max.task.idle.ms over)',
    (v) => v.enforcedProcessing.total,
  );
  tasks.counter(
    `${k}dropped_records_total`,
    'Records dropped: by an exception handler, or by an operator (late for a closed window, null key)',
    (v) => v.droppedRecordsTotal,
  );
  tasks.counter(`${k}rollbacks_total`, 'Rollbacks to the last commit (kstreams)', (v) => v.rollbacksTotal);

  // Async operators (issue 41): in flight now, per running task; the calls' counts and ms from the
  // recorder, kept per task as the task metrics above, for the tasks that made calls.
  family(taskLabels, () =>
    src.asyncInFlight().map((a) => [{ ...thread, task_id: a.taskId }, a] as const),
  ).gauge(
    `${k}async_in_flight`,
    'Records taken by the async operators of the task and not yet released (at most maxInFlight each)',
    (a) => a.inFlight,
  );
  const asyncTasks = family(taskLabels, () => eachTask((v) => v.asyncCalls.total > 0));
  asyncTasks.counter(
    `${k}async_calls_total`,
    'Calls of the async operators of the task finished (a result, an error or a timeout)',
    (v) => v.asyncCalls.total,
  );
  asyncTasks.counter(
    `${k}async_timeouts_total`,
    'Calls of the async operators of the task that ran past their timeoutMs',
    (v) => v.asyncTimeoutsTotal,
  );
  asyncTasks.gauge(
    `${k}async_latency_avg`,
    'Average ms of a call of an async operator of the task, from its start to its result',
    (v) => v.asyncCalls.avg(),
  );
  asyncTasks.gauge(`${k}async_latency_max`, 'Largest ms of a call of an async operator of the task', (v) =>
    v.asyncCalls.max(),
  );

  const lags = function* () {
    for (const p of src.positions()) {
      const end = r.highWatermark(p.topic, p.partition);
      if (end === undefined) continue;
      yield [
        { ...thread, task_id: p.taskId, topic: p.topic, partition: p.partition },
        end - p.position,
      ] as const;
    }
  };
  family(['thread_id', 'task_id', 'topic', 'partition'], lags).gauge(
    'kstreams_consumer_records_lag',
    "Log end offset minus the task position, per input partition (the consumer's records-lag)",
    (lag) => Math.max(0, lag),
  );

  // Standby tasks (issue 37). Kafka Streams' state updater counts them (stream-state-updater-metrics'
  // standby-updating-tasks), its task metrics count the records applied (update-rate/-total), and
  // the restore consumer, which reads standbys' changelogs there, reports their records-lag.
  const standbys = () => src.standbys?.() ?? [];
  threads.gauge(
    'kstreams_stream_state_updater_standby_updating_tasks',
    'Standby tasks of the thread keeping their stores up to date from the changelogs',
    () => standbys().length,
  );
  const updates = family(taskLabels, function* () {
    for (const [id, sensor] of r.standbyUpdates) yield [{ ...thread, task_id: id }, sensor] as const;
  });
  updates.counter(`${k}update_total`, 'Changelog records applied by the standby task', (x) => x.total);
  updates.gauge(`${k}update_rate`, 'Changelog records applied per second by the standby task', (x) =>
    x.rate(),
  );
  family(['thread_id', 'task_id', 'topic', 'partition'], function* () {
    for (const task of standbys())
      for (const p of task.topicPartitions)
        if (p.lag !== null)
          yield [{ ...thread, task_id: task.taskId, topic: p.topic, partition: p.partition }, p.lag] as const;
  }).gauge(
    'kstreams_restore_consumer_records_lag',
    "Changelog end offset (last fetch) minus the standby task's position, per changelog partition (the restore consumer's records-lag)",
    (lag) => lag,
  );

  const s = 'kstreams_restore_';
  const restores = family(['thread_id', 'task_id', 'store_name', 'topic', 'partition'], function* () {
    for (const p of r.restores.values())
      yield [
        { ...thread, task_id: p.taskId, store_name: p.storeName, topic: p.topic, partition: p.partition },
        p,
      ] as const;
  });
  restores.counter(
    `${s}records_restored`,
    'Records restored from the changelog (last restore of the store)',
    (p) => p.restored,
  );
  restores.gauge(`${s}restore_remaining_records`, 'Records left to restore', (p) => p.remaining);

  gauge('kstreams_client_state', "The app's state: 1 for the current one", ['state'], (set) => {
    const now = src.state();
    for (const state of APP_STATES) set({ state }, state === now ? 1 : 0);
  });

  const n = 'kstreams_stream_processor_node_';
  const nodes = family(['thread_id', 'task_id', 'processor_node_id'], function* () {
    for (const e of r.sourceNodes.values())
      yield [{ ...thread, task_id: e.taskId, processor_node_id: e.node }, e.process] as const;
  });
  nodes.counter(`${n}process_total`, 'debug level: records processed by a source node', (x) => x.total);
  nodes.gauge(`${n}process_rate`, 'debug level: records per second processed by a source node', (x) =>
    x.rate(),
  );

  const st = 'kstreams_stream_state_';
  for (const op of ['put', 'get', 'range', 'flush'] as const) {
    const stores = family(['thread_id', 'task_id', 'store_name'], function* () {
      for (const e of r.stores.values())
        yield [{ ...thread, task_id: e.taskId, store_name: e.storeName }, e.ops[op]] as const;
    });
    stores.gauge(`${st}${op}_rate`, `debug level: ${op} calls per second`, (x) => x.rate());
    stores.gauge(`${st}${op}_latency_avg`, `debug level: average ms of a ${op} (sampled)`, (x) => x.avg());
    stores.gauge(`${st}${op}_latency_max`, `debug level: largest ms of a ${op} (sampled)`, (x) => x.max());
  }
  return registry;
}

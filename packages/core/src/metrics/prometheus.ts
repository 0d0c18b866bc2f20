// The app's prom-client registry: every value is read from the recorder when scraped, so the
// runtime's hot path never touches prom-client. Names are Kafka Streams' metric names under their
// group, in Prometheus' snake case (docs: the metrics table of docs/observability.md).
import { Counter, Gauge, Registry } from 'prom-client';
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
  /** Each standby task's changelog partitions and the next offset it applies (issue 37). */
  standbyPositions?(): Array<{ taskId: string; topic: string; partition: number; position: number }>;
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

type Read = (set: (labels: Record<string, string | number>, value: number) => void) => void;

export function createMetricsRegistry(src: MetricsSources): Registry {
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

  const t = 'kstreams_stream_thread_';
  counter(`${t}process_total`, 'Records processed by the thread', ['thread_id'], (set) =>
    set(thread, r.process.total),
  );
  gauge(`${t}process_rate`, 'Records processed per second', ['thread_id'], (set) =>
    set(thread, r.process.rate()),
  );
  gauge(
    `${t}process_latency_avg`,
    'Average ms to process a record (per fetched batch)',
    ['thread_id'],
    (set) => set(thread, r.process.avg()),
  );
  gauge(`${t}process_latency_max`, 'Largest ms per record of a fetched batch', ['thread_id'], (set) =>
    set(thread, r.process.max()),
  );
  gauge(
    `${t}poll_rate`,
    'Fetched batches handed to the thread per second (kafkajs polls inside its loop)',
    ['thread_id'],
    (set) => set(thread, r.poll.rate()),
  );
  counter(`${t}commit_total`, 'Commits of the thread (all its due tasks at once)', ['thread_id'], (set) =>
    set(thread, r.commit.total),
  );
  gauge(`${t}commit_rate`, 'Commits per second', ['thread_id'], (set) => set(thread, r.commit.rate()));
  gauge(`${t}commit_latency_avg`, 'Average ms of a commit', ['thread_id'], (set) =>
    set(thread, r.commit.avg()),
  );
  gauge(`${t}commit_latency_max`, 'Largest ms of a commit', ['thread_id'], (set) =>
    set(thread, r.commit.max()),
  );
  gauge(`${t}punctuate_rate`, 'Punctuator calls per second', ['thread_id'], (set) =>
    set(thread, r.punctuate.rate()),
  );
  counter(`${t}punctuate_total`, 'Punctuator calls', ['thread_id'], (set) => set(thread, r.punctuate.total));
  counter(`${t}transaction_commit_total`, 'exactly_once: transactions committed', ['thread_id'], (set) =>
    set(thread, r.transactionCommit.total),
  );
  counter(`${t}transaction_abort_total`, 'exactly_once: transactions aborted', ['thread_id'], (set) =>
    set(thread, r.transactionAbortsTotal),
  );
  gauge(
    `${t}transaction_commit_latency_avg`,
    'exactly_once: average ms of a task commit',
    ['thread_id'],
    (set) => set(thread, r.transactionCommit.avg()),
  );
  gauge(
    `${t}transaction_commit_latency_max`,
    'exactly_once: largest ms of a task commit',
    ['thread_id'],
    (set) => set(thread, r.transactionCommit.max()),
  );

  const k = 'kstreams_stream_task_';
  const perTask =
    (read: (set: Parameters<Read>[0], id: string, v: ReturnType<typeof r.task>) => void): Read =>
    (set) => {
      for (const [id, v] of r.tasks) read(set, id, v);
    };
  gauge(
    `${k}process_rate`,
    'Records processed per second by the task',
    ['thread_id', 'task_id'],
    perTask((set, id, v) => set({ ...thread, task_id: id }, v.process.rate())),
  );
  counter(
    `${k}process_total`,
    'Records processed by the task',
    ['thread_id', 'task_id'],
    perTask((set, id, v) => set({ ...thread, task_id: id }, v.process.total)),
  );
  gauge(
    `${k}enforced_processing_rate`,
    'Records processed per second while an empty input partition of the task was no longer waited for',
    ['thread_id', 'task_id'],
    perTask((set, id, v) => set({ ...thread, task_id: id }, v.enforcedProcessing.rate())),
  );
  counter(
    `${k}enforced_processing_total`,
    'Records processed while an empty input partition of the task was no longer waited for (max.task.idle.ms over)',
    ['thread_id', 'task_id'],
    perTask((set, id, v) => set({ ...thread, task_id: id }, v.enforcedProcessing.total)),
  );
  counter(
    `${k}dropped_records_total`,
    'Records dropped: by an exception handler, or by an operator (late for a closed window, null key)',
    ['thread_id', 'task_id'],
    perTask((set, id, v) => set({ ...thread, task_id: id }, v.droppedRecordsTotal)),
  );
  counter(
    `${k}rollbacks_total`,
    'Rollbacks to the last commit (kstreams)',
    ['thread_id', 'task_id'],
    perTask((set, id, v) => set({ ...thread, task_id: id }, v.rollbacksTotal)),
  );

  // Async operators (issue 41): in flight now, per running task; the calls' counts and ms from the
  // recorder, kept per task as the task metrics above.
  gauge(
    `${k}async_in_flight`,
    'Records taken by the async operators of the task and not yet released (at most maxInFlight each)',
    ['thread_id', 'task_id'],
    (set) => {
      for (const a of src.asyncInFlight()) set({ ...thread, task_id: a.taskId }, a.inFlight);
    },
  );
  const asyncTasks = (read: (set: Parameters<Read>[0], id: string, v: ReturnType<typeof r.task>) => void) =>
    perTask((set, id, v) => {
      if (v.asyncCalls.total > 0) read(set, id, v);
    });
  counter(
    `${k}async_calls_total`,
    'Calls of the async operators of the task finished (a result, an error or a timeout)',
    ['thread_id', 'task_id'],
    asyncTasks((set, id, v) => set({ ...thread, task_id: id }, v.asyncCalls.total)),
  );
  counter(
    `${k}async_timeouts_total`,
    'Calls of the async operators of the task that ran past their timeoutMs',
    ['thread_id', 'task_id'],
    asyncTasks((set, id, v) => set({ ...thread, task_id: id }, v.asyncTimeoutsTotal)),
  );
  gauge(
    `${k}async_latency_avg`,
    'Average ms of a call of an async operator of the task, from its start to its result',
    ['thread_id', 'task_id'],
    asyncTasks((set, id, v) => set({ ...thread, task_id: id }, v.asyncCalls.avg())),
  );
  gauge(
    `${k}async_latency_max`,
    'Largest ms of a call of an async operator of the task',
    ['thread_id', 'task_id'],
    asyncTasks((set, id, v) => set({ ...thread, task_id: id }, v.asyncCalls.max())),
  );

  gauge(
    'kstreams_consumer_records_lag',
    "Log end offset minus the task position, per input partition (the consumer's records-lag)",
    ['thread_id', 'task_id', 'topic', 'partition'],
    (set) => {
      for (const p of src.positions()) {
        const end = r.highWatermark(p.topic, p.partition);
        if (end === undefined) continue;
        set(
          { ...thread, task_id: p.taskId, topic: p.topic, partition: p.partition },
          Math.max(0, end - p.position),
        );
      }
    },
  );

  gauge(
    'kstreams_standby_records_lag',
    "Changelog end (last stable offset) minus the standby task's position, per changelog partition",
    ['thread_id', 'task_id', 'topic', 'partition'],
    (set) => {
      for (const p of src.standbyPositions?.() ?? []) {
        const end = r.highWatermark(p.topic, p.partition);
        if (end === undefined) continue;
        set(
          { ...thread, task_id: p.taskId, topic: p.topic, partition: p.partition },
          Math.max(0, end - p.position),
        );
      }
    },
  );

  const s = 'kstreams_restore_';
  const restoreLabels = ['thread_id', 'task_id', 'store_name', 'topic', 'partition'];
  const perRestore =
    (value: (p: { restored: number; remaining: number }) => number): Read =>
    (set) => {
      for (const p of r.restores.values())
        set(
          { ...thread, task_id: p.taskId, store_name: p.storeName, topic: p.topic, partition: p.partition },
          value(p),
        );
    };
  counter(
    `${s}records_restored`,
    'Records restored from the changelog (last restore of the store)',
    restoreLabels,
    perRestore((p) => p.restored),
  );
  gauge(
    `${s}restore_remaining_records`,
    'Records left to restore',
    restoreLabels,
    perRestore((p) => p.remaining),
  );

  gauge('kstreams_client_state', "The app's state: 1 for the current one", ['state'], (set) => {
    const now = src.state();
    for (const state of APP_STATES) set({ state }, state === now ? 1 : 0);
  });

  const n = 'kstreams_stream_processor_node_';
  const nodeLabels = ['thread_id', 'task_id', 'processor_node_id'];
  const perNode =
    (value: (sensor: import('./sensor.ts').Sensor) => number): Read =>
    (set) => {
      for (const e of r.sourceNodes.values())
        set({ ...thread, task_id: e.taskId, processor_node_id: e.node }, value(e.process));
    };
  counter(
    `${n}process_total`,
    'debug level: records processed by a source node',
    nodeLabels,
    perNode((x) => x.total),
  );
  gauge(
    `${n}process_rate`,
    'debug level: records per second processed by a source node',
    nodeLabels,
    perNode((x) => x.rate()),
  );

  const st = 'kstreams_stream_state_';
  const storeLabels = ['thread_id', 'task_id', 'store_name'];
  for (const op of ['put', 'get', 'range', 'flush'] as const) {
    const each =
      (
        read: (
          set: Parameters<Read>[0],
          labels: Record<string, string>,
          sensor: import('./sensor.ts').Sensor,
        ) => void,
      ): Read =>
      (set) => {
        for (const e of r.stores.values())
          read(set, { ...thread, task_id: e.taskId, store_name: e.storeName }, e.ops[op]);
      };
    gauge(
      `${st}${op}_rate`,
      `debug level: ${op} calls per second`,
      storeLabels,
      each((set, l, x) => set(l, x.rate())),
    );
    gauge(
      `${st}${op}_latency_avg`,
      `debug level: average ms of a ${op} (sampled)`,
      storeLabels,
      each((set, l, x) => set(l, x.avg())),
    );
    gauge(
      `${st}${op}_latency_max`,
      `debug level: largest ms of a ${op} (sampled)`,
      storeLabels,
      each((set, l, x) => set(l, x.max())),
    );
  }
  return registry;
}

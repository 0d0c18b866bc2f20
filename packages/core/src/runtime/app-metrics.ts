// What KafkaStreams reports of itself as metrics: its Prometheus registry (built on the first
// read) and `metrics()`, both read from the running tasks, the standbys' metadata and the
// recorder at the time of asking.
import type { Registry } from 'prom-client';
import { lazyMetricsRegistry, standbyMetrics } from '../metrics/prometheus.ts';
import type { StreamsMetricsRecorder } from '../metrics/streams-metrics-recorder.ts';
import type { ThreadMetadata } from './local-metadata.ts';
import type { StreamsMetrics } from './metrics.ts';
import type { TaskRuntime } from './task-runtime.ts';
import { asyncInFlightOf, taskPositions } from './task-views.ts';

export interface AppMetricsSources {
  applicationId: string;
  threadName: string;
  recorder: StreamsMetricsRecorder;
  values: StreamsMetrics;
  state(): string;
  runningTasks(): TaskRuntime[];
  localThreads(): ThreadMetadata[];
}

export function appMetricsRegistry(src: AppMetricsSources): () => Registry {
  return lazyMetricsRegistry({
    applicationId: src.applicationId,
    threadId: src.threadName,
    recorder: src.recorder,
    state: src.state,
    positions: () => taskPositions(src.runningTasks()),
    asyncInFlight: () => asyncInFlightOf(src.runningTasks()),
    standbys: () => src.localThreads().flatMap((t) => t.standbyTasks),
  });
}

/** `KafkaStreams.metrics()`: the thread's figures, records in flight and the standbys'. */
export function appMetrics(src: AppMetricsSources): Readonly<StreamsMetrics> {
  const asyncInFlight = asyncInFlightOf(src.runningTasks()).reduce((n, t) => n + t.inFlight, 0);
  const standbys = src.localThreads().flatMap((t) => t.standbyTasks);
  return { ...src.values, asyncInFlight, ...standbyMetrics(standbys, src.recorder) };
}

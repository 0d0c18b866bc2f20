// A TaskManager with fake tasks (fake-task.ts), a fake consumer and a guarantee of the test's
// choice, over a one-subtopology topology reading `in` (tasks 0_<partition>).

import { resolveStreamsConfig } from '../../../src/config/streams-config.ts';
import type { StreamsAdmin } from '../../../src/kafka/admin.ts';
import type { Kafka } from '../../../src/kafka/client.ts';
import { StreamsBuilder } from '../../../src/kstream/index.ts';
import { StreamsMetricsRecorder } from '../../../src/metrics/streams-metrics-recorder.ts';
import { newMetrics, type StreamsMetrics } from '../../../src/runtime/metrics.ts';
import { Mutex } from '../../../src/runtime/mutex.ts';
import type { GuaranteeDeps, ProcessingGuarantee } from '../../../src/runtime/processing-guarantee.ts';
import { TaskManager, type TaskManagerDeps } from '../../../src/runtime/task-manager.ts';
import { Serdes } from '../../../src/serdes/serdes.ts';
import { FakeConsumer } from './fake-consumer.ts';
import { FakeTask } from './fake-task.ts';
import { silentLogger } from './guarantee-deps.ts';

export interface Harness {
  manager: TaskManager<FakeTask>;
  consumer: FakeConsumer;
  /** Every task made, by id, the latest last. */
  made: FakeTask[];
  calls: string[];
  fatal: unknown[];
  running: boolean[];
  /** The manager's counters (app.metrics()). */
  metrics: StreamsMetrics;
  /** Waits until the background creation of tasks has settled. */
  settled(): Promise<void>;
}

export interface HarnessOptions {
  standby?: TaskManagerDeps<FakeTask>['standby'];
  /** Replaces the instant fake restore (e.g. one that waits for the test). */
  restore?: (tasks: FakeTask[]) => Promise<void>;
  isStateless?: (task: FakeTask) => boolean;
}

export function taskManagerHarness(
  guarantee: (deps: GuaranteeDeps) => ProcessingGuarantee,
  options: HarnessOptions = {},
): Harness {
  const builder = new StreamsBuilder();
  builder.stream('in', { keySerde: Serdes.String(), valueSerde: Serdes.String() }).to('out');
  const config = resolveStreamsConfig({ applicationId: 'app', brokers: '127.0.0.1:1' });
  const consumer = new FakeConsumer();
  const made: FakeTask[] = [];
  const calls: string[] = [];
  const fatal: unknown[] = [];
  const running: boolean[] = [];
  const mutex = new Mutex();
  const metrics = newMetrics();
  let closing = false;
  const manager: TaskManager<FakeTask> = new TaskManager<FakeTask>({
    config,
    topology: builder.build(),
    kafka: {} as Kafka,
    admin: {} as StreamsAdmin,
    logger: silentLogger(),
    metrics,
    recorder: new StreamsMetricsRecorder('info'),
    onRunningChange: (r) => running.push(r),
    onFatal: (e) => fatal.push(e),
    consumer,
    mutex,
    isClosing: () => closing,
    fatal: (e) => {
      closing = true;
      fatal.push(e);
    },
    guarantee,
    taskFactory: {
      create: (id) => {
        const task = new FakeTask(id, [{ topic: 'in', partition: Number(id.split('_')[1]) }], calls);
        made.push(task);
        return task;
      },
      restore: async (tasks) => {
        for (const t of tasks) calls.push(`${t.id}.restore`);
        await options.restore?.(tasks);
      },
      isStateless: options.isStateless,
    },
    ...(options.standby ? { standby: options.standby } : {}),
  });
  const settled = async () => {
    for (let i = 0; i < 100 && manager.creating.size > 0; i++) await new Promise((r) => setTimeout(r, 5));
    await mutex.run(() => {});
  };
  return { manager, consumer, made, calls, fatal, running, metrics, settled };
}

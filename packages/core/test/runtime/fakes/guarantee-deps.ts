// GuaranteeDeps for a guarantee under test: a fake consumer, real metrics and recorder, a silent
// logger; commit failures and recreated tasks are recorded.
import pino from 'pino';
import { StreamsMetricsRecorder } from '../../../src/metrics/streams-metrics-recorder.ts';
import { newMetrics } from '../../../src/runtime/metrics.ts';
import type { GuaranteeDeps } from '../../../src/runtime/processing-guarantee.ts';
import type { ActiveTask } from '../../../src/runtime/task.ts';
import { FakeConsumer } from './fake-consumer.ts';

export interface RecordingGuaranteeDeps extends GuaranteeDeps {
  consumer: FakeConsumer;
  commitErrors: Array<{ taskId: string; error: unknown }>;
  recreated: Array<{ taskId: string; delayMs: number }>;
}

export const silentLogger = () => pino({ level: 'silent' });

export function guaranteeDeps(applicationId = 'app'): RecordingGuaranteeDeps {
  const commitErrors: RecordingGuaranteeDeps['commitErrors'] = [];
  const recreated: RecordingGuaranteeDeps['recreated'] = [];
  return {
    config: { applicationId },
    consumer: new FakeConsumer(),
    metrics: newMetrics(),
    recorder: new StreamsMetricsRecorder('info'),
    logger: silentLogger(),
    failingSince: new Map(),
    commitErrors,
    recreated,
    onCommitError: async (task: ActiveTask, error: unknown) => {
      commitErrors.push({ taskId: task.id, error });
    },
    recreate: async (task: ActiveTask, delayMs: number) => {
      recreated.push({ taskId: task.id, delayMs });
    },
  };
}

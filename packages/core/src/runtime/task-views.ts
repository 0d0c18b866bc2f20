// What the app's metrics read of its running tasks when scraped.
import type { TaskRuntime } from './task-runtime.ts';

type RunningTask = Pick<TaskRuntime, 'id' | 'inputPartitions' | 'processedPosition' | 'task'>;

/** Each input partition's processed position, per running task (the consumer-lag metrics). */
export function taskPositions(tasks: readonly RunningTask[]) {
  return tasks.flatMap((rt) =>
    rt.inputPartitions.map((p) => ({
      taskId: rt.id,
      topic: p.topic,
      partition: p.partition,
      position: rt.processedPosition(p.topic, p.partition),
    })),
  );
}

/** Each running task with async operators and its records in flight. */
export function asyncInFlightOf(tasks: readonly RunningTask[]): Array<{ taskId: string; inFlight: number }> {
  return tasks.flatMap((rt) => {
    const m = rt.task.asyncMetrics();
    return m === undefined ? [] : [{ taskId: rt.id, inFlight: m.inFlight }];
  });
}

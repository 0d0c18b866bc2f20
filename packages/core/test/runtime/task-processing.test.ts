// The stream thread's batching with a fake consumer and fake tasks: slices of a fetched batch,
// the flushes and heartbeats between them, the pause of a partition whose queue is full while its
// task waits for another partition (issue 34), and what a task that is not running gets.
import { describe, expect, it } from 'vitest';
import { StreamsMetricsRecorder } from '../../src/metrics/streams-metrics-recorder.ts';
import { newMetrics } from '../../src/runtime/metrics.ts';
import {
  ASYNC_FLUSH_MS,
  ASYNC_FLUSH_RECORDS,
  BATCH_SLICE,
  MAX_BUFFERED_PER_PARTITION,
  outputDue,
  type ProcessingTask,
  TaskProcessing,
} from '../../src/runtime/task-processing.ts';
import { FakeConsumer } from './fakes/fake-consumer.ts';
import { FakeProcessingTask, fakeBatch } from './fakes/fake-processing-task.ts';

function setup(tasks: FakeProcessingTask[]) {
  const consumer = new FakeConsumer();
  const errors: Array<{ taskId: string; where: string; offset: number | undefined }> = [];
  const createdLater: string[][] = [];
  const byId = new Map<string, ProcessingTask>(tasks.map((t) => [t.id, t]));
  let commitRequests = 0;
  const processing = new TaskProcessing({
    consumer,
    metrics: newMetrics(),
    recorder: new StreamsMetricsRecorder('info'),
    isStopped: () => false,
    onCommitRequested: () => commitRequests++,
    manager: {
      tasks: byId,
      taskIdFor: (_topic, partition) => `0_${partition}`,
      missing: (id) => !byId.has(id),
      createLater: (ids) => {
        createdLater.push(ids);
      },
      onTaskError: async (rt, _error, where, record) => {
        errors.push({ taskId: rt.id, where, offset: record?.offset });
      },
    },
  });
  return { consumer, errors, createdLater, processing, commitRequests: () => commitRequests };
}

const running = (t: FakeProcessingTask) => {
  t.state = 'running';
  return t;
};

describe('TaskProcessing', () => {
  it('processes a batch slice by slice: a flush and a heartbeat per slice, the position resolved once per slice', async () => {
    const task = running(new FakeProcessingTask('0_0', [{ topic: 'in', partition: 0 }]));
    const { processing, consumer } = setup([task]);
    const batch = fakeBatch('in', 0, 0, 2_500);
    await processing.processBatch(batch);
    expect(task.processed.map((r) => r.offset)).toEqual(Array.from({ length: 2_500 }, (_, i) => i));
    expect(BATCH_SLICE).toBe(1_000);
    expect(batch.resolved).toEqual([999, 1_999, 2_499]);
    expect(batch.heartbeats).toBe(2);
    // Two flushes inside the slices, one at the end of the batch.
    expect(task.calls.filter((c) => c === '0_0.flush')).toHaveLength(3);
    expect(consumer.pausedPartitions.size).toBe(0);
  });

  it("awaits each slice's prepare (a timestamp extractor's schema fetch) before processing it", async () => {
    const task = running(new FakeProcessingTask('0_0', [{ topic: 'in', partition: 0 }]));
    const { processing } = setup([task]);
    const fetched: number[] = [];
    task.prepare = (from, to) =>
      from === 0
        ? new Promise<void>((resolve) => setTimeout(() => resolve(void fetched.push(to)), 20))
        : undefined;
    const processedWhenFetched: number[] = [];
    const process = task.process.bind(task);
    task.process = (record) => {
      if (record.offset === 0) processedWhenFetched.push(...fetched);
      process(record);
    };
    await processing.processBatch(fakeBatch('in', 0, 0, 1_200));
    expect(processedWhenFetched).toEqual([1_000]);
    expect(task.calls.filter((c) => c.includes('prepare'))).toEqual([
      '0_0.prepare(0-1000)',
      '0_0.prepare(1000-1200)',
    ]);
    expect(task.processed).toHaveLength(1_200);
  });

  it('pauses a partition whose queue is full while its task waits for another partition, and resumes it once drained', async () => {
    const task = running(
      new FakeProcessingTask('0_0', [
        { topic: 'left', partition: 0 },
        { topic: 'right', partition: 0 },
      ]),
    );
    const { processing, consumer } = setup([task]);
    // The right side has records on the broker, not fetched yet: the task waits for them.
    task.partitionGroup.updateEndOffset('right', 0, 10);
    const batch = fakeBatch('left', 0, 0, 1_500);
    await processing.processBatch(batch);
    expect(task.processed).toEqual([]);
    expect(task.partitionGroup.queue('left', 0)!.size).toBe(MAX_BUFFERED_PER_PARTITION);
    // The rest of the batch is fetched again from there once the queue has room.
    expect(batch.resolved).toEqual([999]);
    expect(consumer.isPaused({ topic: 'left', partition: 0 })).toBe(true);

    await processing.processBatch(fakeBatch('right', 0, 0, 10));
    expect(task.processed.length).toBeGreaterThan(0);
    expect(task.partitionGroup.queue('left', 0)!.size).toBeLessThan(MAX_BUFFERED_PER_PARTITION);
    expect(consumer.isPaused({ topic: 'left', partition: 0 })).toBe(false);
  });

  it('pauses the partition of a task that is not running, and creates the task if nothing else will', async () => {
    const { processing, consumer, createdLater } = setup([]);
    await processing.processBatch(fakeBatch('in', 3, 0, 5));
    expect(consumer.isPaused({ topic: 'in', partition: 3 })).toBe(true);
    expect(createdLater).toEqual([['0_3']]);
  });

  it('hands a failed record to the error path and stops the batch there', async () => {
    const task = running(new FakeProcessingTask('0_0', [{ topic: 'in', partition: 0 }]));
    task.failAt = 7;
    const { processing, errors } = setup([task]);
    await processing.processBatch(fakeBatch('in', 0, 0, 20));
    expect(errors).toEqual([{ taskId: '0_0', where: 'processing', offset: 7 }]);
    expect(task.processed).toHaveLength(7);
    expect(task.calls).not.toContain('0_0.flush');
  });

  it('leaves a stale batch alone (a seek is pending for its partition)', async () => {
    const task = running(new FakeProcessingTask('0_0', [{ topic: 'in', partition: 0 }]));
    const { processing } = setup([task]);
    const batch = fakeBatch('in', 0, 0, 5);
    batch.stale = true;
    await processing.processBatch(batch);
    expect(task.processed).toEqual([]);
    expect(batch.resolved).toEqual([]);
  });

  it('asks the thread for a commit when a processor requested one', async () => {
    const task = running(new FakeProcessingTask('0_0', [{ topic: 'in', partition: 0 }]));
    task.commitRequested = true;
    const s = setup([task]);
    await s.processing.processBatch(fakeBatch('in', 0, 0, 3));
    expect(s.commitRequests()).toBe(1);
  });

  it('sends output at once without async calls in flight; with calls in flight in batches or after a second', () => {
    expect(outputDue({ waiting: 0, inFlight: false, sinceSendMs: 60_000 })).toBe(false);
    expect(outputDue({ waiting: 1, inFlight: false, sinceSendMs: 0 })).toBe(true);
    expect(
      outputDue({ waiting: ASYNC_FLUSH_RECORDS - 1, inFlight: true, sinceSendMs: ASYNC_FLUSH_MS - 1 }),
    ).toBe(false);
    expect(outputDue({ waiting: ASYNC_FLUSH_RECORDS, inFlight: true, sinceSendMs: 0 })).toBe(true);
    expect(outputDue({ waiting: 1, inFlight: true, sinceSendMs: ASYNC_FLUSH_MS })).toBe(true);
  });

  it('flushDue flushes a task by that rule (the tick and the async wake-ups)', async () => {
    const task = running(new FakeProcessingTask('0_0', [{ topic: 'in', partition: 0 }]));
    const { processing } = setup([task]);
    const state = { inFlight: true };
    const rt = Object.assign(task, {
      collector: { size: 10 },
      task: { hasInFlight: () => state.inFlight },
      lastSendMs: 5_000,
    });
    const flushes = () => task.calls.filter((c) => c === '0_0.flush').length;
    expect(await processing.flushDue(rt, 5_000 + ASYNC_FLUSH_MS - 1)).toBe(true);
    expect(flushes()).toBe(0);
    expect(await processing.flushDue(rt, 5_000 + ASYNC_FLUSH_MS)).toBe(true);
    expect(flushes()).toBe(1);
    state.inFlight = false;
    await processing.flushDue(rt, 5_001);
    expect(flushes()).toBe(2);
  });
});

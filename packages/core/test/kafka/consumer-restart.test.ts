// What MainConsumer does when kafkajs' consumer crashes and kafkajs itself will not restart it. The
// kafkajs consumer is a stand-in here: the crash to reproduce (a group coordinator not found while
// a broker restarts, under load) is rare on a real broker; the broker-restart test runs the path.
import { KafkaJSGroupCoordinatorNotFound, KafkaJSNonRetriableError } from 'kafkajs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { resolveStreamsConfig } from '../../src/config/streams-config.ts';
import type { Kafka } from '../../src/kafka/client.ts';
import { MainConsumer } from '../../src/kafka/consumer.ts';

type Listener = (event: { payload: Record<string, unknown> }) => void;

/** The part of kafkajs' Consumer that MainConsumer calls, counting connects and runs. */
class StandInConsumer {
  readonly events = {
    GROUP_JOIN: 'join',
    REBALANCING: 'rebalancing',
    CRASH: 'crash',
    START_BATCH_PROCESS: 'batch',
  };
  readonly listeners = new Map<string, Listener>();
  connects = 0;
  runs = 0;
  on(event: string, listener: Listener): void {
    this.listeners.set(event, listener);
  }
  async connect(): Promise<void> {
    this.connects++;
  }
  async subscribe(): Promise<void> {}
  async run(): Promise<void> {
    this.runs++;
  }
  async disconnect(): Promise<void> {}
  emit(event: string, payload: Record<string, unknown>): void {
    this.listeners.get(event)?.({ payload });
  }
}

/** As kafkajs' retrier wraps the error when it gives up finding the group coordinator. */
const coordinatorLost = () => {
  const cause = Reflect.construct(KafkaJSGroupCoordinatorNotFound, [
    'Failed to find group coordinator',
  ]) as Error;
  return Reflect.construct(KafkaJSNonRetriableError, [cause, { cause }]) as Error;
};

describe('MainConsumer after a crash kafkajs does not restart from', () => {
  let kafkajs: StandInConsumer;
  let consumer: MainConsumer;
  let crashes: Array<{ message: string; willRestart: boolean }>;

  beforeEach(async () => {
    vi.useFakeTimers();
    kafkajs = new StandInConsumer();
    const kafka = { consumer: () => kafkajs } as unknown as Kafka;
    const config = resolveStreamsConfig({ applicationId: 'app', brokers: 'broker:9092', logger: 'silent' });
    consumer = new MainConsumer(kafka, config, { subtopologies: () => [], ownedTasks: () => [] });
    crashes = [];
    await consumer.start(['in'], {
      onBatch: async () => {},
      onAssignment: () => {},
      onRebalancing: () => {},
      onControlRecords: () => {},
      onCrash: (error, willRestart) => crashes.push({ message: error.message, willRestart }),
    });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('connects and runs again itself when the error is transient (a group coordinator not found)', async () => {
    kafkajs.emit('crash', { error: coordinatorLost(), restart: false });
    expect(crashes).toEqual([{ message: expect.stringContaining('group coordinator'), willRestart: true }]);
    expect(kafkajs.runs).toBe(1);
    await vi.advanceTimersByTimeAsync(1_000);
    expect([kafkajs.connects, kafkajs.runs]).toEqual([2, 2]);
  });

  it('gives up on an error that is not transient, as kafkajs does', async () => {
    kafkajs.emit('crash', { error: new Error('the eachBatch handler broke'), restart: false });
    await vi.advanceTimersByTimeAsync(5_000);
    expect(crashes).toEqual([{ message: 'the eachBatch handler broke', willRestart: false }]);
    expect(kafkajs.runs).toBe(1);
  });

  it('gives up after five minutes of crashes without a join, and a stop cancels a pending restart', async () => {
    kafkajs.emit('crash', { error: coordinatorLost(), restart: false });
    await vi.advanceTimersByTimeAsync(6 * 60_000);
    kafkajs.emit('crash', { error: coordinatorLost(), restart: false });
    expect(crashes.map((c) => c.willRestart)).toEqual([true, false]);

    kafkajs.emit('join', { memberId: 'm-2', memberAssignment: {} });
    kafkajs.emit('crash', { error: coordinatorLost(), restart: false });
    await consumer.stop();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(crashes.map((c) => c.willRestart)).toEqual([true, false, true]);
    expect(kafkajs.runs).toBe(2);
  });
});

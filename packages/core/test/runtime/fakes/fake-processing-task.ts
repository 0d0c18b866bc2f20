// A FakeTask with the real partition group the stream thread's batching feeds (kafkajs-shaped
// messages are read with the consumer's own reader), and a fetched batch to hand it.
import type { KafkaMessage } from 'kafkajs';
import type { InputBatch } from '../../../src/kafka/consumer.ts';
import { fetchedMessageReader } from '../../../src/kafka/consumer.ts';
import { PartitionGroup } from '../../../src/processor/internals/partition-group.ts';
import type { RecordQueue } from '../../../src/processor/internals/record-queue.ts';
import type { InputRecord } from '../../../src/processor/internals/records.ts';
import type { ProcessingTask } from '../../../src/runtime/task-processing.ts';
import { FakeTask } from './fake-task.ts';

export class FakeProcessingTask extends FakeTask implements ProcessingTask {
  readonly partitionGroup: PartitionGroup;
  readonly sourceNodes = undefined;
  /** The offset whose processing throws. */
  failAt?: number;

  constructor(id: string, partitions: Array<{ topic: string; partition: number }>, calls: string[] = []) {
    super(id, partitions, calls);
    // No bound on the wait for a partition with lag: the issue-34 join wait rule with fetch lag.
    this.partitionGroup = new PartitionGroup(partitions, { maxTaskIdleMs: 0, reader: fetchedMessageReader });
  }

  override process(record: InputRecord): void {
    if (record.offset === this.failAt) throw new Error(`processing ${record.offset} failed (fake)`);
    super.process(record);
  }

  nextRecord(nowMs: number): { record: InputRecord; queue: RecordQueue } | undefined {
    return this.partitionGroup.readyToProcess(nowMs) ? this.partitionGroup.nextRecord() : undefined;
  }

  /** What the task's queue must await for fetched messages `from`..`to` (a schema fetch). */
  prepare?: (from: number, to: number) => Promise<unknown> | undefined;

  prepareFetched(
    _topic: string,
    _partition: number,
    _messages: readonly unknown[],
    from: number,
    to: number,
  ) {
    this.calls.push(`${this.id}.prepare(${from}-${to})`);
    return this.prepare?.(from, to);
  }

  recordProcessed(): void {}

  skipControlRecords(): boolean {
    return false;
  }
}

export interface FakeBatch extends InputBatch {
  resolved: number[];
  heartbeats: number;
  stale: boolean;
}

/** A fetched batch of `count` records of `topic`-`partition` from offset `from`. */
export function fakeBatch(topic: string, partition: number, from: number, count: number): FakeBatch {
  const messages = Array.from(
    { length: count },
    (_, i) =>
      ({
        offset: String(from + i),
        timestamp: String(1_000 + from + i),
        key: Buffer.from(`k${from + i}`),
        value: Buffer.from('v'),
        headers: {},
        attributes: 0,
      }) as KafkaMessage,
  );
  const batch: FakeBatch = {
    topic,
    partition,
    messages,
    lastOffset: from + count - 1,
    highWatermark: from + count,
    endOffset: undefined,
    resolved: [],
    heartbeats: 0,
    stale: false,
    isStale: () => batch.stale,
    resolveOffset: (offset) => {
      batch.resolved.push(offset);
    },
    heartbeat: async () => {
      batch.heartbeats++;
    },
  };
  return batch;
}

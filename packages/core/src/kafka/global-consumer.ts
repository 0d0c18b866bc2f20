// The global stream thread's consumer: all partitions of the global topics, read_committed, from
// the global checkpoint on, for as long as the app runs. Kafka Streams' global consumer has no
// group and assigns itself the partitions; kafkajs cannot assign, so this consumer is the single
// member of a throw-away group whose assigner hands it every partition (as the restore consumer),
// and it never commits: its positions live in the global checkpoint.
import { randomUUID } from 'node:crypto';
import type { Consumer, Kafka } from 'kafkajs';
import type { InputRecord } from '../processor/internals/records.ts';
import type { StreamsAdmin, TopicPartitionOffset } from './admin.ts';
import { toInputRecord } from './consumer.ts';
import { fixedAssigner } from './restore-consumer.ts';

export interface GlobalConsumerHandlers {
  /** A fetched batch of one partition, in offset order (records before the start may be in it). */
  onRecords(topic: string, partition: number, records: InputRecord[]): Promise<void>;
  /** The partition's position moved to `next` (also past transaction markers, which have no record). */
  onPosition(topic: string, partition: number, next: number): void;
  onCrash(error: Error): void;
}

export class GlobalConsumer {
  private readonly groupId: string;
  private consumer: Consumer | undefined;

  constructor(
    private readonly kafka: Kafka,
    private readonly admin: StreamsAdmin,
    groupIdPrefix: string,
  ) {
    this.groupId = `${groupIdPrefix}-global-${randomUUID()}`;
  }

  /** `partitions`: every partition of each global topic; `start`: where to read each from. */
  async start(
    partitions: Map<string, number[]>,
    start: readonly TopicPartitionOffset[],
    handlers: GlobalConsumerHandlers,
  ): Promise<void> {
    const consumer = this.kafka.consumer({
      groupId: this.groupId,
      partitionAssigners: [fixedAssigner(partitions)],
      readUncommitted: false,
      allowAutoTopicCreation: false,
      maxWaitTimeInMs: 100,
      sessionTimeout: 30_000,
    });
    this.consumer = consumer;
    consumer.on(consumer.events.END_BATCH_PROCESS, (e) =>
      handlers.onPosition(e.payload.topic, e.payload.partition, Number(e.payload.lastOffset) + 1),
    );
    consumer.on(consumer.events.CRASH, (e) => {
      if (!e.payload.restart) handlers.onCrash(e.payload.error);
    });
    await consumer.connect();
    await consumer.subscribe({ topics: [...partitions.keys()], fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachBatch: async ({ batch, heartbeat }) => {
        const records = batch.messages.map((m) => toInputRecord(batch.topic, batch.partition, m));
        if (records.length > 0) await handlers.onRecords(batch.topic, batch.partition, records);
        await heartbeat();
      },
    });
    for (const { topic, partition, offset } of start) {
      if (offset > 0) consumer.seek({ topic, partition, offset: String(offset) });
    }
  }

  async stop(): Promise<void> {
    await this.consumer?.disconnect().catch(() => {});
    this.consumer = undefined;
    await this.admin.deleteGroup(this.groupId);
  }
}

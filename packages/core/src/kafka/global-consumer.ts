// The global stream thread's consumer: all partitions of the global topics, read_committed, from
// the global checkpoint on, for as long as the app runs. As Kafka Streams' global consumer it has
// no group and assigns itself the partitions (partition-fetcher.ts), and it never commits: its
// positions live in the global checkpoint. Until 2026-12-06 it was the single member of a
// throw-away kafkajs group (kafkajs has no assign()).
import type { Kafka } from 'kafkajs';
import type { InputRecord } from '../processor/internals/records.ts';
import type { StreamsAdmin, TopicPartitionOffset } from './admin.ts';
import { toInputRecord } from './consumer.ts';
import { PartitionFetcher } from './partition-fetcher.ts';

export interface GlobalConsumerHandlers {
  /** A fetched batch of one partition, in offset order, from its position on. */
  onRecords(topic: string, partition: number, records: InputRecord[]): Promise<void>;
  /** The partition's position moved to `next` (also past transaction markers, which have no record). */
  onPosition(topic: string, partition: number, next: number): void;
  onCrash(error: Error): void;
}

export class GlobalConsumer {
  private fetcher: PartitionFetcher | undefined;

  constructor(
    private readonly kafka: Kafka,
    private readonly admin: StreamsAdmin,
  ) {}

  /** `partitions`: every partition of each global topic; `start`: where to read each from (else 0). */
  async start(
    partitions: Map<string, number[]>,
    start: readonly TopicPartitionOffset[],
    handlers: GlobalConsumerHandlers,
  ): Promise<void> {
    const fetcher = new PartitionFetcher({
      kafka: this.kafka,
      readCommitted: true,
      maxWaitMs: 100,
      // As kafkajs' consumer defaults, which the global consumer had until 2026-12-06.
      maxBytes: 10 * 1024 * 1024,
      maxBytesPerPartition: 1024 * 1024,
      onBatch: async (batch) => {
        const records = batch.messages.map((m) => toInputRecord(batch.topic, batch.partition, m));
        await handlers.onRecords(batch.topic, batch.partition, records);
        batch.resolveOffset(batch.lastOffset);
        handlers.onPosition(batch.topic, batch.partition, batch.lastOffset + 1);
      },
      onControlRecords: (topic, partition, _first, last) => handlers.onPosition(topic, partition, last + 1),
      // Retention deleted records the global store has not read: read on from the log start, as
      // the kafkajs consumer (fromBeginning) did before.
      onOffsetOutOfRange: async ({ topic, partition }) =>
        (await this.admin.startOffsets([topic])).find((o) => o.partition === partition)?.offset ?? 0,
      onError: (error) => handlers.onCrash(error),
    });
    this.fetcher = fetcher;
    const from = new Map(start.map((s) => [`${s.topic}:${s.partition}`, s.offset]));
    fetcher.assign(
      [...partitions].flatMap(([topic, ps]) =>
        ps.map((partition) => ({ topic, partition, offset: from.get(`${topic}:${partition}`) ?? 0 })),
      ),
    );
    await fetcher.start();
  }

  async stop(): Promise<void> {
    await this.fetcher?.stop();
    this.fetcher = undefined;
  }
}

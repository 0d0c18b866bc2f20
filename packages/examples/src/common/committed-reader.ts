import type { Consumer, Kafka } from 'kafkajs';

/** One record as read: key and value bytes (a record without either is skipped), its timestamp. */
export interface ReadRecord {
  key: Buffer;
  value: Buffer;
  timestamp: number;
}

/**
 * Reads a topic from the beginning as a read_committed consumer (what a downstream app of an
 * exactly_once app sees) and hands every record to `onRecord`, in order per partition.
 */
export class CommittedReader {
  private consumer?: Consumer;
  private lastRecordAt = 0;

  constructor(
    private readonly kafka: Kafka,
    private readonly topic: string,
    private readonly groupId: string,
    private readonly onRecord: (record: ReadRecord) => void,
  ) {}

  /** When the last record arrived (ms since the epoch; 0: none yet). */
  get lastRecordTime(): number {
    return this.lastRecordAt;
  }

  async start(): Promise<void> {
    const consumer = this.kafka.consumer({
      groupId: this.groupId,
      readUncommitted: false,
      maxWaitTimeInMs: 100,
    });
    this.consumer = consumer;
    await consumer.connect();
    await consumer.subscribe({ topic: this.topic, fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachBatch: async ({ batch }) => {
        for (const message of batch.messages) {
          if (!message.key || !message.value) continue;
          this.lastRecordAt = Date.now();
          this.onRecord({ key: message.key, value: message.value, timestamp: Number(message.timestamp) });
        }
      },
    });
  }

  async stop(): Promise<void> {
    await this.consumer?.disconnect();
  }
}

// What "the app has caught up" means to the demo and the tests: its consumer group has committed
// the input's end offsets, and the counts read back from the output topic add up.
import type { Admin, Consumer, Kafka } from 'kafkajs';

export interface InputProgress {
  /** Sum over partitions of the group's committed offsets (records processed and committed). */
  committed: number;
  /** Sum over partitions of the end offsets (records written). */
  end: number;
  /** Every partition's committed offset equals its end offset. */
  caughtUp: boolean;
}

export async function inputProgress(admin: Admin, groupId: string, topic: string): Promise<InputProgress> {
  const [ends, groupOffsets] = await Promise.all([
    admin.fetchTopicOffsets(topic),
    admin.fetchOffsets({ groupId, topics: [topic] }),
  ]);
  const committedBy = new Map(
    (groupOffsets.find((t) => t.topic === topic)?.partitions ?? []).map((p) => [
      p.partition,
      Math.max(0, Number(p.offset)),
    ]),
  );
  let committed = 0;
  let end = 0;
  let caughtUp = true;
  for (const p of ends) {
    const c = committedBy.get(p.partition) ?? 0;
    committed += c;
    end += Number(p.high);
    if (c < Number(p.high)) caughtUp = false;
  }
  return { committed, end, caughtUp };
}

/**
 * Reads the word-count output topic from the beginning, read_committed, keeping the latest count
 * of each word. A word lives in one partition and its counts arrive in order, so the sum of the
 * latest counts is the number of words counted so far.
 */
export class CountsReader {
  readonly latest = new Map<string, number>();
  private total = 0;
  private consumer?: Consumer;

  constructor(
    private readonly kafka: Kafka,
    private readonly topic: string,
    private readonly groupId: string,
  ) {}

  get wordsCounted(): number {
    return this.total;
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
          const word = message.key.toString('utf8');
          // The count is Kafka's LongSerializer format: 8 bytes, big-endian, two's complement.
          const count = Number(message.value.readBigInt64BE(0));
          this.total += count - (this.latest.get(word) ?? 0);
          this.latest.set(word, count);
        }
      },
    });
  }

  async stop(): Promise<void> {
    await this.consumer?.disconnect();
  }
}

// The main consumer as the task manager and the guarantees use it: pauses, resumes, seeks and
// offset commits are recorded, not sent.
import type { TopicPartitionOffset } from '../../../src/kafka/admin.ts';
import type { TaskManagerConsumer } from '../../../src/runtime/task-manager.ts';

const key = (tp: { topic: string; partition: number }) => `${tp.topic}-${tp.partition}`;

export class FakeConsumer implements TaskManagerConsumer {
  readonly pausedPartitions = new Set<string>();
  readonly seeks: TopicPartitionOffset[] = [];
  readonly commits: TopicPartitionOffset[][] = [];
  /** The next offset commits throw this. */
  commitError?: Error;

  pause(partitions: Array<{ topic: string; partition: number }>): void {
    for (const p of partitions) this.pausedPartitions.add(key(p));
  }

  resume(partitions: Array<{ topic: string; partition: number }>): void {
    for (const p of partitions) this.pausedPartitions.delete(key(p));
  }

  seek(tp: TopicPartitionOffset): void {
    this.seeks.push(tp);
  }

  async commitOffsets(offsets: TopicPartitionOffset[]): Promise<void> {
    if (this.commitError) throw this.commitError;
    this.commits.push(offsets);
  }

  isPaused(tp: { topic: string; partition: number }): boolean {
    return this.pausedPartitions.has(key(tp));
  }
}

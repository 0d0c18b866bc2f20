// What "the app has caught up" means to the word-count demo and tests: the counts read back from
// the output topic add up (and, in common/input-progress.ts, the input is committed to its end).
import type { Kafka } from 'kafkajs';
import { CommittedReader } from '../common/committed-reader.ts';

export { type InputProgress, inputProgress } from '../common/input-progress.ts';

/**
 * Reads the word-count output topic from the beginning, read_committed, keeping the latest count
 * of each word. A word lives in one partition and its counts arrive in order, so the sum of the
 * latest counts is the number of words counted so far.
 */
export class CountsReader {
  readonly latest = new Map<string, number>();
  private total = 0;
  private readonly reader: CommittedReader;

  constructor(kafka: Kafka, topic: string, groupId: string) {
    this.reader = new CommittedReader(kafka, topic, groupId, ({ key, value }) => {
      const word = key.toString('utf8');
      // The count is Kafka's LongSerializer format: 8 bytes, big-endian, two's complement.
      const count = Number(value.readBigInt64BE(0));
      this.total += count - (this.latest.get(word) ?? 0);
      this.latest.set(word, count);
    });
  }

  get wordsCounted(): number {
    return this.total;
  }

  start(): Promise<void> {
    return this.reader.start();
  }

  stop(): Promise<void> {
    return this.reader.stop();
  }
}

// The setting the multi-instance benches share: a word count's topics, its stores filled with a
// given number of distinct words before anything is measured, and a read_committed reader of its
// output that stamps each record's end-to-end latency.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Admin, Consumer, Kafka } from 'kafkajs';
import { createTopics, preload } from '../word-count/cluster.ts';
import { vocabulary } from '../word-count/corpus.ts';

export interface WordCountTopics {
  input: string;
  output: string;
}

/** The environment of the crash-test app for one instance of application `tag`. */
export function instanceEnv(
  brokers: string[],
  tag: string,
  topics: WordCountTopics,
  extra: Record<string, string>,
): Record<string, string> {
  return {
    KAFKA_BROKERS: brokers.join(','),
    APPLICATION_ID: tag,
    INPUT_TOPIC: topics.input,
    OUTPUT_TOPIC: topics.output,
    STATE_DIR: mkdtempSync(join(tmpdir(), `${tag}-`)),
    PROCESSING_GUARANTEE: 'exactly_once',
    LOG_LEVEL: 'debug',
    ...extra,
  };
}

/**
 * Creates the input and output topics of application `tag` and writes `keys` distinct words to
 * the input, ten to a line. Returns the topics and how many words the fill holds (with the record
 * cache off, as many output records).
 */
export async function createAndFill(
  admin: Admin,
  kafka: Kafka,
  tag: string,
  keys: number,
  partitions: number,
): Promise<WordCountTopics & { words: number }> {
  const topics = { input: `${tag}-in`, output: `${tag}-out` };
  await createTopics(admin, [topics.input, topics.output], partitions);
  const words = vocabulary(keys, () => Math.random());
  const fill: string[] = [];
  for (let i = 0; i < words.length; i += 10) fill.push(words.slice(i, i + 10).join(' '));
  await preload(kafka, topics.input, fill, partitions);
  return { ...topics, words: words.length };
}

/** Reads the output topic read_committed from the start; each record's latency is kept with its arrival. */
export class OutputReader {
  readonly latencies: Array<{ at: number; ms: number }> = [];
  private constructor(private readonly consumer: Consumer) {}

  static async start(kafka: Kafka, topic: string, groupId: string): Promise<OutputReader> {
    const consumer = kafka.consumer({ groupId, readUncommitted: false });
    const reader = new OutputReader(consumer);
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      eachBatch: async ({ batch }) => {
        const now = Date.now();
        for (const m of batch.messages) reader.latencies.push({ at: now, ms: now - Number(m.timestamp) });
      },
    });
    return reader;
  }

  get count(): number {
    return this.latencies.length;
  }

  /** Resolves once `records` output records arrived; throws after `timeoutMs` saying how far it got. */
  async awaitCount(records: number, timeoutMs: number, what: string): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.count < records) {
      if (Date.now() > deadline)
        throw new Error(`${what} was not processed in ${timeoutMs / 1000} s (${this.count} of ${records})`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  stop(): Promise<void> {
    return this.consumer.disconnect();
  }
}

// Writes a text to the input topic, one record per non-empty line.
import { createReadStream } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { Producer } from 'kafkajs';

/** The public-domain book shipped with the example (see packages/examples/data/README.md). */
export const BOOK_PATH = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'data', 'kjv.txt');

/**
 * The lines of a UTF-8 text file, without line endings. Lines that are empty or only white space
 * are skipped: they hold no words, and a record for them would only be processed to no effect.
 */
export async function* readLines(path: string): AsyncGenerator<string> {
  const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  for await (const line of lines) {
    if (line.trim().length > 0) yield line;
  }
}

export interface FeedResult {
  records: number;
  bytes: number;
}

/**
 * Sends the lines as records with a null key (as Kafka's console producer does, so the producer
 * spreads them over the partitions) in batches of `batchSize`: kafkajs makes one request per
 * send() call, so sending line by line would be a few hundred times slower.
 */
export async function feedLines(
  producer: Producer,
  topic: string,
  lines: AsyncIterable<string> | Iterable<string>,
  {
    batchSize = 1_000,
    onBatch,
    beforeBatch,
  }: {
    batchSize?: number;
    onBatch?: (sent: FeedResult) => void;
    /** Awaited before each batch; a caller can hold the feeder back until the app catches up. */
    beforeBatch?: (sent: FeedResult) => Promise<void>;
  } = {},
): Promise<FeedResult> {
  const sent: FeedResult = { records: 0, bytes: 0 };
  let batch: { key: null; value: string }[] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    await beforeBatch?.({ ...sent });
    await producer.send({ topic, messages: batch, acks: -1 });
    sent.records += batch.length;
    sent.bytes += batch.reduce((n, m) => n + Buffer.byteLength(m.value), 0);
    batch = [];
    onBatch?.({ ...sent });
  };
  for await (const line of lines) {
    batch.push({ key: null, value: line });
    if (batch.length >= batchSize) await flush();
  }
  await flush();
  return sent;
}

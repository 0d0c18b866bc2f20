// The producer family's application: it sends the workload in chunks, one send() each, awaiting
// each. What it does when a send fails is the configuration's: fire-and-forget moves on (the
// thread's C), the others send the chunk again, as an at-least-once application would.
import { type Kafka, Partitioners } from 'kafkajs';
import { type ProducerConfigId, producerSettings } from './configs.ts';
import { chunks, type SeqRecord } from './workload.ts';

export interface SourceOptions {
  kafka: Kafka;
  config: ProducerConfigId;
  topic: string;
  records: SeqRecord[];
  chunkSize: number;
  /** After each chunk the broker acknowledged (or, with acks=0, that was written). */
  onChunk?: (sentRecords: number, chunkIndex: number) => void | Promise<void>;
}

export interface SourceResult {
  /** Records handed to send(), resends included. */
  sent: number;
  /** Sends that failed (and were resent, or given up under fire-and-forget). */
  failedSends: number;
}

export async function runSource(o: SourceOptions): Promise<SourceResult> {
  const { client, acks } = producerSettings(o.config);
  const producer = o.kafka.producer({
    ...client,
    allowAutoTopicCreation: false,
    createPartitioner: Partitioners.DefaultPartitioner,
  });
  await producer.connect();
  let sent = 0;
  let failedSends = 0;
  let index = 0;
  try {
    for (const chunk of chunks(o.records, o.chunkSize)) {
      for (let attempt = 0; ; attempt++) {
        sent += chunk.length;
        try {
          await producer.send({ topic: o.topic, acks, messages: chunk });
          break;
        } catch (error) {
          failedSends++;
          if (o.config === 'fireAndForget') break;
          if (attempt >= 20) throw error;
          await new Promise((r) => setTimeout(r, 200));
        }
      }
      await o.onChunk?.(sent, index++);
    }
  } finally {
    // acks=0: a send resolves once written; let the socket drain before closing it.
    if (acks === 0) await new Promise((r) => setTimeout(r, 300));
    await producer.disconnect().catch(() => {});
  }
  return { sent, failedSends };
}

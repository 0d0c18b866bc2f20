// Reads a whole topic as a read_committed consumer would, from the beginning to its current end.
// kafkajs 2.2.4 lets records of interleaved aborted transactions through; @kstreams/core patches
// its fetch decoding when loaded, and verify must see exactly what a kstreams app's reader sees.
import '@kstreams/core';
import { randomBytes } from 'node:crypto';
import { Kafka, type KafkaConfig, logLevel } from 'kafkajs';

export interface RawRecord {
  key: string;
  value: Buffer | null;
  partition: number;
  offset: number;
}

export interface ReadOptions {
  brokers: string[];
  topic: string;
  /** Passed to kafkajs as they are (ssl, sasl, socketFactory, ...). */
  kafkaConfig?: Partial<KafkaConfig>;
  /** Give up after this long (default 120 s); records read so far are returned. */
  timeoutMs?: number;
  /**
   * Stop once no record came for this long (default 3 s). Transaction markers take offsets, so
   * the last record's offset alone cannot tell a transactional topic's end.
   */
  idleMs?: number;
}

export function kafkaFor(brokers: string[], config: Partial<KafkaConfig> = {}): Kafka {
  return new Kafka({ clientId: 'kstreams-verify', logLevel: logLevel.NOTHING, ...config, brokers });
}

/** The topic's records in per-partition offset order (partitions interleaved as fetched). */
export async function readCommitted(options: ReadOptions): Promise<RawRecord[]> {
  const { topic, timeoutMs = 120_000, idleMs = 3_000 } = options;
  const kafka = kafkaFor(options.brokers, options.kafkaConfig);
  const admin = kafka.admin();
  await admin.connect();
  let ends: Map<number, number>;
  try {
    const topics = await admin.listTopics();
    if (!topics.includes(topic))
      throw new Error(
        `topic "${topic}" does not exist on ${options.brokers.join(',')}${
          // With ACLs, a topic the user may not Describe is left out of the list.
          options.kafkaConfig?.sasl ? ', or the user may not Describe it' : ''
        }`,
      );
    ends = new Map((await admin.fetchTopicOffsets(topic)).map((o) => [o.partition, Number(o.high)]));
  } finally {
    await admin.disconnect();
  }
  const records: RawRecord[] = [];
  const reached = new Map<number, number>();
  // The group exists only for this read and commits nothing.
  const consumer = kafka.consumer({
    groupId: `kstreams-verify-${randomBytes(6).toString('hex')}`,
    maxWaitTimeInMs: 100,
  });
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    await new Promise<void>((resolve, reject) => {
      let lastRecordAt = Date.now();
      const finish = (error?: unknown) => {
        clearInterval(timer);
        if (error === undefined) resolve();
        else reject(error);
      };
      // A consumer that cannot join (its group refused, say) reads nothing: that is a failure,
      // never an empty, clean topic.
      consumer.on(consumer.events.CRASH, ({ payload }) => finish(payload.error));
      const allReached = () => [...ends].every(([p, end]) => end === 0 || (reached.get(p) ?? -1) + 1 >= end);
      const started = Date.now();
      const timer = setInterval(() => {
        if (allReached() || Date.now() - lastRecordAt >= idleMs || Date.now() - started >= timeoutMs)
          finish();
      }, 50);
      consumer
        .run({
          autoCommit: false,
          eachBatch: async ({ batch }) => {
            for (const m of batch.messages) {
              const offset = Number(m.offset);
              records.push({
                key: m.key?.toString() ?? '',
                value: m.value,
                partition: batch.partition,
                offset,
              });
              reached.set(batch.partition, offset);
            }
            if (batch.messages.length > 0) lastRecordAt = Date.now();
          },
        })
        .catch(finish);
    });
  } finally {
    await consumer.disconnect();
  }
  return records;
}

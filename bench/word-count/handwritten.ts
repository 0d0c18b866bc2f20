// The baseline: word count written directly against kafkajs 2.2.4, the way a careful user would
// without a framework. Stage 1 splits lines and writes each word, keyed by itself, to an
// intermediate topic (so that one partition sees every occurrence of a word); stage 2 counts in a
// Map and writes each new count. One consumer group per stage, eachBatch, offsets auto-committed
// after each batch is handled, acks -1.
//
// Each batch's output goes out with sendBatch, in slices of `sendChunk` messages, in order:
// kafkajs 2.2.4 groups a send's messages per partition with an array spread per message
// (producer/groupMessagesPerPartition.js), O(n^2) in the messages of one topic in one call, so a
// single sendBatch of the ~160k words of a 1 MB input batch blocks the event loop for minutes
// (measured: 80k messages 21 s, 160k 138 s) and the group evicts the consumer. A careful user
// slices; sendChunk 0 sends each batch in one sendBatch, as the naive version would.
import { Kafka, logLevel, type Message, Partitioners } from 'kafkajs';
// The example's own word rule, so that the hand-written app does exactly the same work.
import { wordsOf } from '../../packages/examples/src/word-count/words.ts';

export interface HandWrittenOptions {
  brokers: string[];
  appId: string;
  inputTopic: string;
  repartitionTopic: string;
  outputTopic: string;
  /** Messages per sendBatch call (0: the whole batch in one call). */
  sendChunk: number;
}

export interface HandWrittenApp {
  /**
   * Resolves when both consumers have joined their groups. `onFatal`: a consumer crashed and
   * kafkajs will not restart it (the app would hang otherwise).
   */
  start(onFatal: (error: Error) => void): Promise<void>;
  stop(): Promise<void>;
}

export function handWrittenWordCount(opts: HandWrittenOptions): HandWrittenApp {
  const kafka = new Kafka({ clientId: opts.appId, brokers: opts.brokers, logLevel: logLevel.WARN });
  const producer = kafka.producer({
    createPartitioner: Partitioners.DefaultPartitioner,
    allowAutoTopicCreation: false,
  });
  const splitter = kafka.consumer({ groupId: `${opts.appId}-split`, allowAutoTopicCreation: false });
  const counter = kafka.consumer({ groupId: `${opts.appId}-count`, allowAutoTopicCreation: false });
  const counts = new Map<string, number>();
  // One slice after the other: concurrent sends may reach the broker out of order, and the last
  // count of a word must be the last record of its key.
  const send = async (topic: string, messages: Message[]) => {
    const size = opts.sendChunk > 0 ? opts.sendChunk : messages.length;
    for (let i = 0; i < messages.length; i += size) {
      await producer.sendBatch({
        topicMessages: [{ topic, messages: messages.slice(i, i + size) }],
        acks: -1,
      });
    }
  };

  const joined = (consumer: typeof splitter) =>
    new Promise<void>((resolve) => {
      const off = consumer.on(consumer.events.GROUP_JOIN, () => {
        off();
        resolve();
      });
    });

  return {
    async start(onFatal) {
      const joins = [joined(splitter), joined(counter)];
      for (const consumer of [splitter, counter]) {
        consumer.on(consumer.events.CRASH, (e) => {
          if (!e.payload.restart) onFatal(e.payload.error);
        });
      }
      await producer.connect();
      await Promise.all([splitter.connect(), counter.connect()]);
      await splitter.subscribe({ topic: opts.inputTopic, fromBeginning: true });
      await counter.subscribe({ topic: opts.repartitionTopic, fromBeginning: true });
      await splitter.run({
        eachBatch: async ({ batch }) => {
          const messages: Message[] = [];
          for (const m of batch.messages) {
            if (!m.value) continue;
            for (const word of wordsOf(m.value.toString())) {
              const bytes = Buffer.from(word);
              messages.push({ key: bytes, value: bytes });
            }
          }
          await send(opts.repartitionTopic, messages);
        },
      });
      await counter.run({
        eachBatch: async ({ batch }) => {
          const messages: Message[] = [];
          for (const m of batch.messages) {
            if (!m.key) continue;
            const word = m.key.toString();
            const count = (counts.get(word) ?? 0) + 1;
            counts.set(word, count);
            const value = Buffer.allocUnsafe(8);
            value.writeBigInt64BE(BigInt(count));
            messages.push({ key: m.key, value });
          }
          await send(opts.outputTopic, messages);
        },
      });
      await Promise.all(joins);
    },
    async stop() {
      await Promise.all([splitter.disconnect(), counter.disconnect()]);
      await producer.disconnect();
    },
  };
}

// The same hand-written word count as handwritten.ts, on @platformatic/kafka instead of kafkajs:
// the client's ceiling for the same work (issue 18). Stage 1 splits lines and writes each word,
// keyed by itself, to the intermediate topic; stage 2 counts in a Map and writes each new count.
// One consumer group per stage, one producer, acks -1, the Java-compatible murmur2 partitioner
// (kafkajs' DefaultPartitioner: same word, same partition), sends in slices of `sendChunk`, one
// slice after the other.
//
// kafkajs hands eachBatch a fetched batch and commits its offsets once the handler resolves. This
// client hands out single messages through a Readable, and its `autocommit` commits a fetch's
// offsets as soon as the fetch is pushed into the stream, before it is handled (at most once).
// So: autocommit off; take everything the stream has buffered as one batch (all partitions' records,
// where kafkajs hands one partition's batch at a time), handle it, send its output, then commit
// the batch's last offset + 1 per partition (at least once, as kafkajs).
// Fetch sizes as kafkajs' defaults (1 MB per partition, 10 MB per fetch, 5 s max wait) so that
// batches are alike; this client's own default is 10 MB per partition.
import {
  Consumer,
  compatibilityPartitioner,
  type Message,
  type MessagesStream,
  type MessageToProduce,
  ProduceAcks,
  Producer,
} from '@platformatic/kafka';
import { wordsOf } from '../../packages/examples/src/word-count/words.ts';
import type { HandWrittenApp, HandWrittenOptions } from './handwritten.ts';

type Stream = MessagesStream<Buffer, Buffer, Buffer, Buffer>;

const FETCH = { maxBytesPerPartition: 1_048_576, maxBytes: 10_485_760, maxWaitTime: 5_000, minBytes: 1 };

/**
 * Batches from a stream in paused mode: everything it has buffered, or (when it has none) what
 * its next push brings. The `readable` listener stays on for the stream's life: without one the
 * stream counts as unconsumed (readableFlowing null) and stops fetching.
 */
function batches(stream: Stream, closed: () => boolean): () => Promise<Message[]> {
  let wake: (() => void) | undefined;
  const poke = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  stream.on('readable', poke);
  stream.on('close', poke);
  return async () => {
    for (;;) {
      const batch: Message[] = [];
      for (let m = stream.read() as Message | null; m !== null; m = stream.read() as Message | null) {
        batch.push(m);
      }
      if (batch.length > 0 || closed()) return batch;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  };
}

/** The offset after each partition's last message in the batch (batches are in offset order). */
function nextOffsets(batch: Message[]) {
  const next = new Map<string, { topic: string; partition: number; offset: bigint; leaderEpoch: number }>();
  for (const m of batch) {
    next.set(`${m.topic}:${m.partition}`, {
      topic: m.topic,
      partition: m.partition,
      offset: m.offset + 1n,
      leaderEpoch: -1,
    });
  }
  return [...next.values()];
}

export function platformaticWordCount(opts: HandWrittenOptions): HandWrittenApp {
  const base = { clientId: opts.appId, bootstrapBrokers: opts.brokers };
  const producer = new Producer({
    ...base,
    partitioner: compatibilityPartitioner,
    autocreateTopics: false,
  });
  const splitter = new Consumer({ ...base, groupId: `${opts.appId}-split`, autocommit: false, ...FETCH });
  const counter = new Consumer({ ...base, groupId: `${opts.appId}-count`, autocommit: false, ...FETCH });
  const counts = new Map<string, number>();
  const loops: Promise<void>[] = [];
  let closed = false;

  const send = async (messages: MessageToProduce[]) => {
    const size = opts.sendChunk > 0 ? opts.sendChunk : messages.length;
    for (let i = 0; i < messages.length; i += size) {
      await producer.send({ messages: messages.slice(i, i + size), acks: ProduceAcks.ALL });
    }
  };

  const run = async (
    consumer: Consumer,
    topic: string,
    handle: (batch: Message[]) => MessageToProduce[],
    onFatal: (error: Error) => void,
  ): Promise<Stream> => {
    // consume() resolves once the consumer has joined its group.
    const stream = await consumer.consume({
      topics: [topic],
      mode: 'committed',
      fallbackMode: 'earliest',
      autocommit: false,
    });
    stream.on('error', (error) => {
      if (!closed) onFatal(error);
    });
    const next = batches(stream, () => closed);
    loops.push(
      (async () => {
        while (!closed) {
          const batch = await next();
          if (batch.length === 0) continue;
          await send(handle(batch));
          await consumer.commit({ offsets: nextOffsets(batch) });
        }
      })().catch((error: Error) => {
        if (!closed) onFatal(error);
      }),
    );
    return stream;
  };

  const streams: Stream[] = [];
  return {
    async start(onFatal) {
      const split = (batch: Message[]) => {
        const out: MessageToProduce[] = [];
        for (const m of batch) {
          if (!m.value) continue;
          for (const word of wordsOf(m.value.toString())) {
            const bytes = Buffer.from(word);
            out.push({ topic: opts.repartitionTopic, key: bytes, value: bytes });
          }
        }
        return out;
      };
      const count = (batch: Message[]) => {
        const out: MessageToProduce[] = [];
        for (const m of batch) {
          if (!m.key) continue;
          const word = m.key.toString();
          const n = (counts.get(word) ?? 0) + 1;
          counts.set(word, n);
          const value = Buffer.allocUnsafe(8);
          value.writeBigInt64BE(BigInt(n));
          out.push({ topic: opts.outputTopic, key: m.key, value });
        }
        return out;
      };
      streams.push(
        ...(await Promise.all([
          run(splitter, opts.inputTopic, split, onFatal),
          run(counter, opts.repartitionTopic, count, onFatal),
        ])),
      );
    },
    async stop() {
      closed = true;
      await Promise.all(streams.map((s) => s.close()));
      await Promise.all(loops);
      await Promise.all([splitter.close(), counter.close()]);
      await producer.close();
    },
  };
}

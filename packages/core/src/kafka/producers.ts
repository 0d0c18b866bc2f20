// Producers for the guarantees. at_least_once: one idempotent producer shared by all tasks.
// exactly_once: one transactional producer per task (transactionalId = <applicationId>-<taskId>),
// fenced by the transactional id: a new owner of the task fences the old one. (exactly_once_v2's
// one producer per thread, fenced by the group generation, is thread-producer.ts.)
// This module loads no kafkajs value (only its types); producer-grouping.ts, imported below for how
// many records a send may carry, installs core's replacements before anything loads kafkajs.
import type { Kafka, Message, Producer, RecordMetadata, Transaction } from 'kafkajs';
import type { ProducerConfig } from '../config/streams-config.ts';
import type { RecordSendError } from '../errors.ts';
import type { OutputBatch } from '../processor/internals/output-batch.ts';
import { outputBatchRecords } from '../processor/internals/output-batch-records.ts';
import type { CollectedOutput } from '../processor/internals/record-collector.ts';
import { type OutputRecord, topicPartitionKey } from '../processor/internals/records.ts';
import type { TopicPartitionOffset } from './admin.ts';
import { explainRefusal } from './client.ts';
import { hasErrorType } from './error-kinds.ts';
import { JavaCompatiblePartitioner } from './java-partitioner.ts';
import { ENCODED_BATCH, type EncodedBatchMessage, produceEncodingInstalled } from './produce-encoding.ts';
import { linearGroupingInstalled } from './producer-grouping.ts';
import { isTooLargeError, recordSendError, sendErrorKind } from './send-errors.ts';

/**
 * Told of each record of a send that failed with an error Kafka Streams' RecordCollector judges
 * (`askHandler`: the production exception handler decides; false: fatal without asking, as Java).
 * Returning drops the record and the send goes on; throwing fails the send with that error.
 * `source` is the batch or record of the output the record came from.
 */
export type SendFailureHandler = (
  error: RecordSendError,
  record: OutputRecord,
  askHandler: boolean,
  source: OutputBatch | OutputRecord,
) => void | Promise<void>;

export interface TaskProducer {
  /** exactly_once: sends join a transaction, so a task may go on processing while one is in flight. */
  readonly transactional: boolean;
  /**
   * Sends the records (in one request per broker) and resolves when all are acknowledged.
   * Returns, for each topic-partition that records were sent to with an explicit partition,
   * the offset after the last of them (what a changelog checkpoint records).
   */
  send(output: CollectedOutput, onFailure?: SendFailureHandler): Promise<TopicPartitionOffset[]>;
  /** exactly_once: adds the input offsets to the transaction and commits it. */
  commitTransaction(groupId: string, offsets: TopicPartitionOffset[]): Promise<void>;
  /** exactly_once: aborts the open transaction, if any. */
  abortTransaction(): Promise<void>;
  close(): Promise<void>;
}

export function toMessages(records: OutputRecord[]): Array<{ topic: string; messages: Message[] }> {
  const byTopic = new Map<string, Message[]>();
  for (const r of records) {
    let list = byTopic.get(r.topic);
    if (!list) {
      list = [];
      byTopic.set(r.topic, list);
    }
    const m: Message = { key: r.key, value: r.value, timestamp: String(r.timestamp) };
    if (r.partition !== undefined) m.partition = r.partition;
    if (r.headers) m.headers = r.headers as Message['headers'];
    list.push(m);
  }
  return [...byTopic].map(([topic, messages]) => ({ topic, messages }));
}

/**
 * Keeps each produce request moderate: the broker refuses a batch over its 1 MB
 * `message.max.bytes`. kafkajs' own grouping of a call's messages by partition is quadratic in
 * their number; with the linear one installed (producer-grouping.ts) a call may carry more: a
 * send waits for its acknowledgement before the next one goes out, so fewer calls mean fewer round
 * trips. With the byte bound below (64 bytes counted per record) small records go about 8,000 to a
 * call: the word count's commits sent 3-7 calls of 1,000 records before, one or two now (exactly_once
 * +5-25% words per second).
 */
const MAX_RECORDS_PER_SEND = linearGroupingInstalled() ? 10_000 : 1_000;
const MAX_BYTES_PER_SEND = 512 * 1024;

/** Offsets in the shape of kafkajs' sendOffsets. */
export function toOffsetTopics(
  offsets: TopicPartitionOffset[],
): Array<{ topic: string; partitions: Array<{ partition: number; offset: string }> }> {
  const topics = new Map<string, Array<{ partition: number; offset: string }>>();
  for (const o of offsets) {
    const list = topics.get(o.topic) ?? [];
    list.push({ partition: o.partition, offset: String(o.offset) });
    topics.set(o.topic, list);
  }
  return [...topics].map(([topic, partitions]) => ({ topic, partitions }));
}

export function chunkRecords(records: OutputRecord[]): OutputRecord[][] {
  const chunks: OutputRecord[][] = [];
  let current: OutputRecord[] = [];
  let bytes = 0;
  for (const r of records) {
    const size = (r.key?.length ?? 0) + (r.value?.length ?? 0) + 64;
    if (current.length > 0 && (current.length >= MAX_RECORDS_PER_SEND || bytes + size > MAX_BYTES_PER_SEND)) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
    current.push(r);
    bytes += size;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

/**
 * Groups encoded batches into sends: a produce request (v3 and later) takes one batch per
 * partition, so a partition's second batch goes in a later send than its first; a send carries
 * about MAX_BYTES_PER_SEND (at least one batch).
 */
export function planBatchSends(batches: OutputBatch[]): OutputBatch[][] {
  const rounds: OutputBatch[][] = [];
  const seen = new Map<string, number>();
  for (const b of batches) {
    const k = topicPartitionKey(b.topic, b.partition);
    const round = seen.get(k) ?? 0;
    seen.set(k, round + 1);
    const list = rounds[round];
    if (list === undefined) rounds[round] = [b];
    else list.push(b);
  }
  const sends: OutputBatch[][] = [];
  for (const round of rounds) {
    let current: OutputBatch[] = [];
    let bytes = 0;
    for (const b of round) {
      if (current.length > 0 && bytes + b.bytes > MAX_BYTES_PER_SEND) {
        sends.push(current);
        current = [];
        bytes = 0;
      }
      current.push(b);
      bytes += b.bytes;
    }
    if (current.length > 0) sends.push(current);
  }
  return sends;
}

/** kafkajs' messages for encoded batches: a batch's marker once per record it holds. */
export function batchMessages(batches: OutputBatch[]): TopicMessages[] {
  const byTopic = new Map<string, EncodedBatchMessage[]>();
  for (const batch of batches) {
    let list = byTopic.get(batch.topic);
    if (!list) {
      list = [];
      byTopic.set(batch.topic, list);
    }
    const marker: EncodedBatchMessage = {
      partition: batch.partition,
      key: null,
      value: null,
      [ENCODED_BATCH]: batch,
    };
    for (let i = 0; i < batch.count; i++) list.push(marker);
  }
  return [...byTopic].map(([topic, messages]) => ({ topic, messages: messages as unknown as Message[] }));
}

type TopicMessages = { topic: string; messages: Message[] };

/** One call of a send: its messages, the end offsets it reports, and its records when it failed. */
interface SendCall {
  messages: TopicMessages[];
  ended(meta: RecordMetadata[]): TopicPartitionOffset[];
  records(): Array<{ record: OutputRecord; source: OutputBatch | OutputRecord; explicit: boolean }>;
  /** A call of several partitions' batches: one call per batch. */
  parts?(): SendCall[];
}

/** Sends a task's output (batches, then records) call after call; merges the end offsets they report. */
export async function sendInChunks(
  output: CollectedOutput,
  sendOne: (topicMessages: TopicMessages[]) => Promise<RecordMetadata[]>,
  onFailure?: SendFailureHandler,
): Promise<TopicPartitionOffset[]> {
  const ends = new Map<string, TopicPartitionOffset>();
  const merge = (found: TopicPartitionOffset[]) => {
    for (const end of found) {
      const k = topicPartitionKey(end.topic, end.partition);
      if ((ends.get(k)?.offset ?? -1) < end.offset) ends.set(k, end);
    }
  };
  if (output.batches.length > 0 && !produceEncodingInstalled()) {
    throw new Error("kstreams: encoded batches need core's produce request, which is not installed");
  }
  /** One call; on failure, the handler's say per record (see SendFailureHandler). */
  const attempt = async (call: SendCall): Promise<void> => {
    try {
      merge(call.ended(await sendOne(call.messages)));
    } catch (error) {
      const kind = onFailure === undefined ? 'pass' : sendErrorKind(error);
      const failed = call.records();
      // A denied write names no topic: the call's topics let the AuthorizationError name them.
      if (hasErrorType(error, 'TOPIC_AUTHORIZATION_FAILED') && typeof error === 'object' && error !== null)
        Object.assign(error, { deniedTopics: [...new Set(failed.map((f) => f.record.topic))] });
      if (onFailure === undefined || kind === 'pass') throw error;
      if (kind === 'handled' && isTooLargeError(error)) {
        // Java's producer splits a batch the broker refused as too large and sends it again; only
        // a record too large on its own fails. First each partition's batch alone: the broker
        // wrote the call's other partitions, and kafkajs rolled their sequence numbers back, so
        // the same batch again is a duplicate the idempotent broker acknowledges without writing
        // it twice. Then the refused partition's records one by one.
        const parts = call.parts?.();
        if (parts !== undefined && parts.length > 1) {
          for (const part of parts) await attempt(part);
          return;
        }
        if (failed.length > 1) {
          for (const one of failed)
            await attempt({
              messages: toMessages([one.record]),
              ended: (meta) => (one.explicit ? explicitEnds([one.record], meta) : []),
              records: () => [one],
            });
          return;
        }
      }
      for (const { record, source } of failed)
        await onFailure(
          recordSendError(error, record.topic, record.partition),
          record,
          kind === 'handled',
          source,
        );
    }
  };
  const batchCall = (send: OutputBatch[]): SendCall => ({
    messages: batchMessages(send),
    ended: (meta) => batchEnds(send, meta),
    records: () =>
      send.flatMap((batch) =>
        outputBatchRecords(batch).map((record) => ({ record, source: batch, explicit: batch.explicit })),
      ),
    ...(send.length > 1 ? { parts: () => send.map((b) => batchCall([b])) } : {}),
  });
  for (const send of planBatchSends(output.batches)) await attempt(batchCall(send));
  for (const chunk of chunkRecords(output.records))
    await attempt({
      messages: toMessages(chunk),
      ended: (meta) => explicitEnds(chunk, meta),
      records: () =>
        chunk.map((record) => ({ record, source: record, explicit: record.partition !== undefined })),
    });
  return [...ends.values()];
}

/** The end offsets of the batches that named their partition (changelogs'). */
function batchEnds(batches: OutputBatch[], meta: RecordMetadata[]): TopicPartitionOffset[] {
  const sent = new Map<string, OutputBatch>();
  for (const b of batches) if (b.explicit) sent.set(topicPartitionKey(b.topic, b.partition), b);
  const ends: TopicPartitionOffset[] = [];
  for (const m of meta) {
    const b = sent.get(topicPartitionKey(m.topicName, m.partition));
    if (b === undefined || m.baseOffset === undefined) continue;
    ends.push({ topic: m.topicName, partition: m.partition, offset: Number(m.baseOffset) + b.count });
  }
  return ends;
}

/** The topic-partitions a task's output names explicitly: whose end offsets it is told. */
export function explicitPartitions(output: CollectedOutput): Set<string> {
  const named = new Set<string>();
  for (const b of output.batches) if (b.explicit) named.add(topicPartitionKey(b.topic, b.partition));
  for (const r of output.records)
    if (r.partition !== undefined) named.add(topicPartitionKey(r.topic, r.partition));
  return named;
}

/** Whether there is nothing to send. */
export const isEmptyOutput = (output: CollectedOutput): boolean =>
  output.batches.length === 0 && output.records.length === 0;

function explicitEnds(records: OutputRecord[], meta: RecordMetadata[]): TopicPartitionOffset[] {
  const counts = new Map<string, number>();
  for (const r of records) {
    if (r.partition === undefined) continue;
    const k = topicPartitionKey(r.topic, r.partition);
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  const ends: TopicPartitionOffset[] = [];
  for (const m of meta) {
    const n = counts.get(topicPartitionKey(m.topicName, m.partition));
    if (n === undefined || m.baseOffset === undefined) continue;
    ends.push({ topic: m.topicName, partition: m.partition, offset: Number(m.baseOffset) + n });
  }
  return ends;
}

export class SharedProducer implements TaskProducer {
  readonly transactional = false;
  private producer: Producer;
  private connecting?: Promise<void>;

  constructor(
    private readonly kafka: Kafka,
    private readonly config: Required<ProducerConfig>,
  ) {
    this.producer = this.create();
  }

  private create(): Producer {
    return this.kafka.producer({
      idempotent: this.config.idempotent,
      maxInFlightRequests: this.config.maxInFlightRequests,
      retry: { retries: this.config.retries },
      // Java-compatible murmur2, so that Java clients and kafkajs agree on a key's partition.
      createPartitioner: JavaCompatiblePartitioner,
    });
  }

  connect(): Promise<void> {
    // A failed connect (broker away) is not remembered: the next send tries again.
    this.connecting ??= this.producer.connect().catch((error: unknown) => {
      this.connecting = undefined;
      throw error;
    });
    return this.connecting;
  }

  /**
   * Replaces the kafkajs producer with a new one (a new producer id, sequence numbers from zero),
   * connected at the next send. For a producer whose state is unknown after a failed send: when
   * acks were lost (a broker restart), kafkajs' sequence numbers stay behind the broker's and
   * every later send fails with OUT_OF_ORDER_SEQUENCE_NUMBER; kafkajs has no way back for an
   * idempotent producer.
   */
  async reset(): Promise<void> {
    const old = this.producer;
    const wasConnected = this.connecting !== undefined;
    this.producer = this.create();
    this.connecting = undefined;
    if (wasConnected) await old.disconnect().catch(() => {});
  }

  private last: Promise<unknown> = Promise.resolve();

  /**
   * Runs after the sends asked for before it: the tasks' sends do not hold the stream thread
   * (task-runtime.ts' flush), and kafkajs numbers an idempotent producer's batches when it builds
   * the request, so two sends at once to one partition could reuse sequence numbers.
   */
  send(output: CollectedOutput, onFailure?: SendFailureHandler): Promise<TopicPartitionOffset[]> {
    if (isEmptyOutput(output)) return Promise.resolve([]);
    const sendOne = (topicMessages: TopicMessages[]) =>
      this.producer.sendBatch({ topicMessages, acks: this.config.acks });
    const run = this.last.then(() => this.connect().then(() => sendInChunks(output, sendOne, onFailure)));
    this.last = run.catch(() => {});
    return run;
  }

  async commitTransaction(): Promise<void> {
    throw new Error('at_least_once commits offsets through the consumer, not a transaction');
  }

  async abortTransaction(): Promise<void> {}

  async close(): Promise<void> {
    if (this.connecting) await this.producer.disconnect();
    this.connecting = undefined;
  }
}

/** A transactional kafkajs producer with core's settings (a task's, or a thread's under exactly_once_v2). */
export function transactionalProducer(
  kafka: Kafka,
  transactionalId: string,
  config: Required<ProducerConfig>,
): Producer {
  return kafka.producer({
    transactionalId,
    idempotent: true,
    maxInFlightRequests: config.maxInFlightRequests,
    transactionTimeout: config.transactionTimeoutMs,
    // Right after a commit the coordinator answers CONCURRENT_TRANSACTIONS until the markers are
    // written (a few ms); kafkajs' default 300 ms first backoff would stall every transaction.
    retry: { retries: config.retries, initialRetryTime: 10, maxRetryTime: 1_000 },
    createPartitioner: JavaCompatiblePartitioner,
  });
}

/**
 * Java's initTransactions: connects and registers the transactional id with the coordinator, which
 * bumps its epoch, fencing any older producer with this id and aborting the transaction it left open.
 */
export async function initTransactions(kafka: Kafka, producer: Producer): Promise<void> {
  try {
    await producer.connect();
    const t = await producer.transaction();
    await t.abort();
  } catch (error) {
    // A transactional id the user may not Describe shows as a coordinator not found.
    throw explainRefusal(kafka, error);
  }
}

/** A task's transactional producer; the transaction begins with the first send after a commit. */
export class TransactionalTaskProducer implements TaskProducer {
  readonly transactional = true;
  private readonly producer: Producer;
  private transaction?: Transaction;

  constructor(
    private readonly kafka: Kafka,
    readonly transactionalId: string,
    readonly config: Required<ProducerConfig>,
  ) {
    this.producer = transactionalProducer(kafka, transactionalId, config);
  }

  /**
   * Registers the transactional id (see `initTransactions`). Must run before the task reads its
   * committed offsets, so that a zombie cannot commit behind our back.
   */
  initialize(): Promise<void> {
    return initTransactions(this.kafka, this.producer);
  }

  private async begin(): Promise<Transaction> {
    this.transaction ??= await this.producer.transaction();
    return this.transaction;
  }

  async send(output: CollectedOutput, onFailure?: SendFailureHandler): Promise<TopicPartitionOffset[]> {
    if (isEmptyOutput(output)) return [];
    const t = await this.begin();
    return sendInChunks(output, (topicMessages) => t.sendBatch({ topicMessages, acks: -1 }), onFailure);
  }

  async commitTransaction(groupId: string, offsets: TopicPartitionOffset[]): Promise<void> {
    if (offsets.length === 0 && !this.transaction) return;
    const t = await this.begin();
    if (offsets.length > 0)
      await t.sendOffsets({ consumerGroupId: groupId, topics: toOffsetTopics(offsets) });
    await t.commit();
    this.transaction = undefined;
  }

  async abortTransaction(): Promise<void> {
    const t = this.transaction;
    this.transaction = undefined;
    if (t?.isActive()) await t.abort();
  }

  async close(): Promise<void> {
    this.transaction = undefined;
    await this.producer.disconnect().catch(() => {});
  }
}

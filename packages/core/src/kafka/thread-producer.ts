// exactly_once_v2: one transactional producer for all the tasks of a stream thread. Every task's
// output and changelog records go into the thread's open transaction; a commit adds all the tasks'
// input offsets, with the consumer group generation they were processed in (TxnOffsetCommit v3,
// txn-offset-commit.ts), and commits once. A zombie is fenced by that generation, not by its
// transactional id: its offsets are refused once the group has moved on, and a task's new owner
// reads only stable offsets (stable-offset-fetch.ts), so it waits for a transaction in flight.
// This module loads no kafkajs value (only its types); see producers.ts.
import type { Kafka, Producer, Transaction } from 'kafkajs';
import type { ProducerConfig } from '../config/streams-config.ts';
import type { CollectedOutput } from '../processor/internals/record-collector.ts';
import { topicPartitionKey } from '../processor/internals/records.ts';
import type { TopicPartitionOffset } from './admin.ts';
import { retryWhileErrorType } from './error-kinds.ts';
import {
  explicitPartitions,
  initTransactions,
  isEmptyOutput,
  type SendFailureHandler,
  sendInChunks,
  type TaskProducer,
  toOffsetTopics,
  transactionalProducer,
} from './producers.ts';
import { type ConsumerGroupMetadata, commitOffsetsInGeneration } from './txn-offset-commit.ts';

/** Right after a commit or an abort the coordinator answers CONCURRENT_TRANSACTIONS for a few ms. */
const CONCURRENT_RETRY = { timeoutMs: 5_000, backoffMs: 10, maxBackoffMs: 100 };

interface PendingSend {
  output: CollectedOutput;
  onFailure: SendFailureHandler | undefined;
  resolve(ends: TopicPartitionOffset[]): void;
  reject(error: unknown): void;
}

/** Of a shared send's end offsets, those of the partitions a task's output names. */
function endsOf(output: CollectedOutput, ends: TopicPartitionOffset[]): TopicPartitionOffset[] {
  const mine = explicitPartitions(output);
  return ends.filter((e) => mine.has(topicPartitionKey(e.topic, e.partition)));
}

/** Each failed record goes to the handler of the task whose output it came from. */
function failureHandlerOf(sends: PendingSend[]): SendFailureHandler | undefined {
  if (sends.length === 1) return sends[0]!.onFailure;
  const owner = new Map<object, SendFailureHandler | undefined>();
  for (const s of sends)
    for (const part of [...s.output.batches, ...s.output.records]) owner.set(part, s.onFailure);
  return (error, record, askHandler, source) => {
    const handler = owner.get(source);
    if (handler === undefined) throw error.cause;
    return handler(error, record, askHandler, source);
  };
}

export class TransactionalThreadProducer {
  private producer: Producer;
  private transaction?: Transaction;
  /** A new producer registers its transactional id before its first transaction. */
  private initialized = false;
  /**
   * Sends wait here while one is in flight, then go out together in the next request: one request
   * at a time (kafkajs numbers an idempotent producer's batches as it builds them), and the
   * thread's tasks share each round trip.
   */
  private waiting: PendingSend[] = [];
  private inFlight?: Promise<void>;
  private readonly unregister: () => void;

  constructor(
    private readonly kafka: Kafka,
    readonly transactionalId: string,
    private readonly config: Required<ProducerConfig>,
    groupMetadata: () => ConsumerGroupMetadata | undefined,
  ) {
    this.producer = this.create();
    this.unregister = commitOffsetsInGeneration(transactionalId, groupMetadata);
  }

  private create(): Producer {
    return transactionalProducer(this.kafka, this.transactionalId, this.config);
  }

  /**
   * Registers the transactional id (`initTransactions`): fences an earlier producer with this id
   * (the thread before its producer was replaced) and aborts the transaction it left open.
   */
  async initialize(): Promise<void> {
    await initTransactions(this.kafka, this.producer);
    this.initialized = true;
  }

  /**
   * A new kafkajs producer with the same transactional id, for when the old one's state is
   * unknown after a failure (a commit whose answer was lost, sequence numbers behind the broker's).
   * It registers at its first transaction, so a broker that is away fails that send, not this.
   */
  async reset(): Promise<void> {
    const old = this.producer;
    this.transaction = undefined;
    this.producer = this.create();
    this.initialized = false;
    await old.disconnect().catch(() => {});
  }

  private async begin(): Promise<Transaction> {
    if (!this.initialized) await this.initialize();
    this.transaction ??= await this.producer.transaction();
    return this.transaction;
  }

  /**
   * Sends into the open transaction (opening one), with whatever other tasks send meanwhile.
   * Resolves when acknowledged, with the end offsets of the partitions `output` names explicitly.
   */
  send(output: CollectedOutput, onFailure?: SendFailureHandler): Promise<TopicPartitionOffset[]> {
    if (isEmptyOutput(output)) return Promise.resolve([]);
    return new Promise((resolve, reject) => {
      this.waiting.push({ output, onFailure, resolve, reject });
      this.sendWaiting();
    });
  }

  private sendWaiting(): void {
    if (this.inFlight !== undefined || this.waiting.length === 0) return;
    const batch = this.waiting;
    this.waiting = [];
    this.inFlight = (async () => {
      try {
        const t = await this.begin();
        const output =
          batch.length === 1
            ? batch[0]!.output
            : {
                batches: batch.flatMap((b) => b.output.batches),
                records: batch.flatMap((b) => b.output.records),
              };
        const ends = await sendInChunks(
          output,
          (topicMessages) => t.sendBatch({ topicMessages, acks: -1 }),
          failureHandlerOf(batch),
        );
        for (const b of batch) b.resolve(batch.length === 1 ? ends : endsOf(b.output, ends));
      } catch (error) {
        for (const b of batch) b.reject(error);
      } finally {
        this.inFlight = undefined;
        this.sendWaiting();
      }
    })();
  }

  /** Until every send so far is settled. */
  private async settled(): Promise<void> {
    while (this.inFlight !== undefined) await this.inFlight;
  }

  /** Adds the tasks' input offsets to the transaction and commits it. */
  async commit(groupId: string, offsets: TopicPartitionOffset[]): Promise<void> {
    await this.settled();
    if (offsets.length === 0 && !this.transaction) return;
    const t = await this.begin();
    if (offsets.length > 0) {
      const request = { consumerGroupId: groupId, topics: toOffsetTopics(offsets) };
      // kafkajs does not retry AddOffsetsToTxn's CONCURRENT_TRANSACTIONS itself.
      await retryWhileErrorType('CONCURRENT_TRANSACTIONS', () => t.sendOffsets(request), CONCURRENT_RETRY);
    }
    await t.commit();
    this.transaction = undefined;
  }

  /** Aborts the open transaction, if any, once its sends have settled. */
  async abort(): Promise<void> {
    await this.settled();
    const t = this.transaction;
    this.transaction = undefined;
    if (t?.isActive()) await t.abort();
  }

  /** What a task sees: sends into the thread's transaction; commits and aborts are the thread's. */
  forTask(): TaskProducer {
    return {
      transactional: true,
      send: (records, onFailure) => this.send(records, onFailure),
      commitTransaction: () =>
        Promise.reject(new Error('exactly_once_v2 commits the thread, not a task (TaskManager.commitAll)')),
      // The thread aborts its transaction itself, with all its tasks (ThreadTransaction.rollBack):
      // one task's abort would drop the others' records.
      abortTransaction: () => Promise.resolve(),
      close: () => Promise.resolve(),
    };
  }

  async close(): Promise<void> {
    this.unregister();
    this.transaction = undefined;
    await this.producer.disconnect().catch(() => {});
  }
}

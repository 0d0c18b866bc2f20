// exactly_once_v2's commit and rollback, for all the running tasks of a stream thread at once: one
// transaction holds every task's output and changelog records since the last commit, so its tasks
// commit together, and when anything fails (a processor, a send, the commit) they all roll back to
// their last commit. The offsets are committed in the group generation whose assignment the thread
// last took: once the group has moved on, the coordinator refuses them, and the tasks roll back
// (Kafka Streams' TaskMigratedException).
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { ResolvedConfig } from '../config/streams-config.ts';
import type { TopicPartitionOffset } from '../kafka/admin.ts';
import type { Kafka } from '../kafka/client.ts';
import { kafkajsCapabilities } from '../kafka/kafkajs-patches.ts';
import { TransactionalThreadProducer } from '../kafka/thread-producer.ts';
import type { StreamsMetricsRecorder } from '../metrics/streams-metrics-recorder.ts';
import type { StreamsMetrics } from './metrics.ts';
import type { ActiveTask } from './task.ts';

export interface ThreadTransactionDeps {
  metrics: StreamsMetrics;
  recorder: StreamsMetricsRecorder;
  logger: Logger;
  /** Moves the consumer's position (back to a task's last commit). */
  seek(tp: TopicPartitionOffset): void;
}

/** kafka/thread-producer.ts' TransactionalThreadProducer as the thread's transaction uses it. */
export type ThreadProducer = Pick<
  TransactionalThreadProducer,
  'transactionalId' | 'initialize' | 'commit' | 'abort' | 'reset' | 'close' | 'forTask'
>;

/** The group generation a commit is made in (KIP-447), once the thread has joined. */
export type GenerationOf = () =>
  | { memberId: string; generationId: number; groupInstanceId: string | null }
  | undefined;

export class ThreadTransaction {
  readonly producer: ThreadProducer;
  private memberId?: string;
  private generationId?: number;
  private groupInstanceId: string | null = null;

  /** The thread's transaction with its real producer. */
  static create(kafka: Kafka, config: ResolvedConfig, deps: ThreadTransactionDeps): ThreadTransaction {
    const kafkajs = kafkajsCapabilities();
    if (!kafkajs.groupGeneration || !kafkajs.txnOffsetCommitV3 || !kafkajs.stableOffsetFetch)
      throw new Error(
        "processingGuarantee 'exactly_once_v2' needs the KIP-447 requests @kstreams/core adds to kafkajs, and it " +
          "cannot reach kafkajs' files (bundled into one file?). Keep kafkajs an external module of the bundle, " +
          "or use 'exactly_once' (one transaction per task, no KIP-447).",
      );
    // Kafka Streams' <application.id>-<process id>-<thread>: a new id per start, since fencing comes
    // from the group generation, not from the transactional id.
    return new ThreadTransaction(
      deps,
      (generation) =>
        new TransactionalThreadProducer(
          kafka,
          `${config.applicationId}-${randomUUID()}-1`,
          config.producer,
          generation,
        ),
    );
  }

  constructor(
    private readonly deps: ThreadTransactionDeps,
    newProducer: (generation: GenerationOf) => ThreadProducer,
  ) {
    this.producer = newProducer(() =>
      this.memberId === undefined || this.generationId === undefined
        ? undefined
        : { memberId: this.memberId, generationId: this.generationId, groupInstanceId: this.groupInstanceId },
    );
  }

  /** The thread took the assignment of this generation: commits from now on are made in it. */
  joined(memberId: string, generationId: number | undefined, groupInstanceId: string | null = null): void {
    this.memberId = memberId;
    this.generationId = generationId;
    this.groupInstanceId = groupInstanceId;
  }

  /**
   * Sends what the tasks still hold, then commits their input offsets and everything sent since
   * the last commit in one transaction; then the tasks' stores apply their buffers. Throws when
   * the transaction did not commit: then every task must roll back (`rollBack`).
   */
  async commit(due: ActiveTask[], groupId: string): Promise<void> {
    const started = performance.now();
    const offsets = due.map((rt) => rt.consumedOffsets());
    // At once, so that the tasks' records share the producer's requests.
    const ends = await Promise.all(due.map((rt) => rt.sendForCommit()));
    // The offsets carry the group generation that fences a zombie (KIP-447): a transaction with
    // none to commit (punctuators' output only) would commit unchecked, so it commits the tasks'
    // last committed offsets again.
    const all = offsets.flat();
    await this.producer.commit(groupId, all.length > 0 ? all : due.flatMap((rt) => rt.committedPositions()));
    for (const [i, rt] of due.entries()) await rt.postCommit(ends[i]!, { offsets: offsets[i]! });
    this.deps.recorder.transactionCommitted(performance.now() - started);
    this.deps.metrics.commits += due.length;
  }

  /**
   * Aborts the transaction and drops every task's work since its last commit; the consumer goes
   * back to the tasks' last committed offsets. `resetProducer`: the producer's state is unknown
   * after the failure (and so it is when the abort fails): a new one takes its place.
   */
  async rollBack(tasks: ActiveTask[], resetProducer: boolean): Promise<void> {
    const { metrics, recorder, logger, seek } = this.deps;
    metrics.rollbacks += tasks.length;
    for (const rt of tasks) recorder.rolledBack(rt.id);
    recorder.transactionAborted();
    for (const rt of tasks) rt.clearOutput();
    let aborted = true;
    try {
      await this.producer.abort();
    } catch (error) {
      logger.warn({ err: error }, 'abort failed');
      aborted = false;
    }
    for (const rt of tasks) {
      await rt.rollback();
      for (const tp of rt.startPositions()) seek(tp);
    }
    if (resetProducer || !aborted) {
      logger.warn('replacing the thread producer, whose state is unknown after the failure');
      await this.producer.reset();
    }
  }
}

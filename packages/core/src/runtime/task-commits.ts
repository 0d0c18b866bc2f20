// How the due tasks commit under each guarantee: exactly_once, a transaction per task;
// exactly_once_v2, the thread's one transaction; at_least_once, sends acknowledged and then one
// offset commit through the consumer. A task whose commit fails goes to `onTaskError`, which
// rolls it back (all tasks under exactly_once_v2).
import type { Logger } from 'pino';
import type { ResolvedConfig } from '../config/streams-config.ts';
import type { TopicPartitionOffset } from '../kafka/admin.ts';
import type { MainConsumer } from '../kafka/consumer.ts';
import type { StreamsMetricsRecorder } from '../metrics/streams-metrics-recorder.ts';
import type { StreamsMetrics } from './metrics.ts';
import type { ActiveTask } from './task.ts';
import type { ThreadTransaction } from './thread-transaction.ts';

export interface TaskCommitsDeps {
  config: ResolvedConfig;
  consumer: Pick<MainConsumer, 'commitOffsets'>;
  metrics: StreamsMetrics;
  recorder: StreamsMetricsRecorder;
  logger: Logger;
  threadTransaction: ThreadTransaction | undefined;
  /** Since when each task's sends or commits have been failing; a commit clears its entry. */
  failingSince: Map<string, number>;
  onTaskError(rt: ActiveTask, error: unknown): Promise<void>;
}

export class TaskCommits {
  constructor(private readonly deps: TaskCommitsDeps) {}

  async commit(due: ActiveTask[]): Promise<void> {
    const { threadTransaction, config } = this.deps;
    if (threadTransaction) await this.commitThread(threadTransaction, due);
    else if (config.exactlyOnce) await Promise.all(due.map((t) => this.commitTransactional(t)));
    else await this.commitAtLeastOnce(due);
  }

  private async commitTransactional(rt: ActiveTask): Promise<void> {
    try {
      const started = performance.now();
      await rt.commitTransaction(this.deps.config.applicationId);
      this.deps.recorder.transactionCommitted(performance.now() - started);
      this.deps.failingSince.delete(rt.id);
      this.deps.metrics.commits++;
    } catch (error) {
      await this.deps.onTaskError(rt, error);
    }
  }

  private async commitThread(tx: ThreadTransaction, due: ActiveTask[]): Promise<void> {
    try {
      await tx.commit(due, this.deps.config.applicationId);
      for (const rt of due) this.deps.failingSince.delete(rt.id);
    } catch (error) {
      // The thread's transaction is one unit: its first task stands for it.
      await this.deps.onTaskError(due[0]!, error);
    }
  }

  private async commitAtLeastOnce(due: ActiveTask[]): Promise<void> {
    const sent = new Map<ActiveTask, TopicPartitionOffset[]>();
    for (const rt of due) {
      try {
        sent.set(rt, await rt.sendForCommit());
      } catch (error) {
        await this.deps.onTaskError(rt, error);
      }
    }
    const ready = due.filter((t) => sent.has(t));
    let offsetsCommitted = true;
    try {
      await this.deps.consumer.commitOffsets(ready.flatMap((t) => t.consumedOffsets()));
    } catch (error) {
      // The outputs and changelog records are acknowledged, so the stores must follow the
      // changelog. The offsets stay due: the next commit sends them again (with the generation
      // kafkajs has joined by then), else a task whose input is all processed never commits
      // again. If the task moves meanwhile, its new owner processes the input again
      // (at_least_once allows it).
      offsetsCommitted = false;
      this.deps.logger.warn(
        { err: error, tasks: ready.map((t) => t.id) },
        'offset commit failed; retrying at the next commit',
      );
    }
    for (const rt of ready) {
      await rt.postCommit(sent.get(rt)!, { offsetsCommitted });
      if (!offsetsCommitted) continue;
      this.deps.failingSince.delete(rt.id);
      this.deps.metrics.commits++;
    }
  }
}

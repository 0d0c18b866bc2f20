// exactly_once_v2 (KIP-447): the thread's one transaction holds every task's work since the last
// commit (thread-transaction.ts), fenced by the group generation. So the tasks commit together and
// roll back together: a failure of one, a revocation or a recreated task drops all their work.
import type { TaskProducer } from '../kafka/producers.ts';
import type { GuaranteeDeps, ProcessingGuarantee, TaskFailure } from './processing-guarantee.ts';
import type { ActiveTask } from './task.ts';
import type { ThreadTransaction } from './thread-transaction.ts';

export class ExactlyOnceV2 implements ProcessingGuarantee {
  readonly name = 'exactly_once_v2';
  /** The transaction is the thread's: a fenced commit rolls back every task, which keep running. */
  readonly fencingRecreatesTask = false;

  constructor(
    private readonly deps: GuaranteeDeps,
    readonly transaction: ThreadTransaction,
  ) {}

  connect(): Promise<void> {
    return this.transaction.producer.initialize();
  }

  async close(): Promise<void> {
    // A clean close committed just before; what is left open was never committed.
    await this.transaction.producer.abort().catch(() => {});
    await this.transaction.producer.close();
  }

  producerFor(): TaskProducer {
    return this.transaction.producer.forTask();
  }

  transactionalIdFor(): string {
    return this.transaction.producer.transactionalId;
  }

  joined(memberId: string, generationId: number | undefined, groupInstanceId: string | null = null): void {
    this.transaction.joined(memberId, generationId, groupInstanceId);
  }

  async commit(due: ActiveTask[]): Promise<void> {
    try {
      await this.transaction.commit(due, this.deps.config.applicationId);
      for (const rt of due) this.deps.failingSince.delete(rt.id);
    } catch (error) {
      // The thread's transaction is one unit: its first task stands for it.
      await this.deps.onCommitError(due[0]!, error);
    }
  }

  /** Every task's records since the last commit are in the one transaction: all roll back. */
  async rollBack(_task: ActiveTask, failure: TaskFailure, running: ActiveTask[]): Promise<void> {
    // The producer is replaced unless the group had only moved on.
    await this.transaction.rollBack(running, failure.producerBroken && !failure.groupMoved);
  }

  /**
   * The new owners of revoked tasks may have read their offsets already (kafkajs tells of a
   * revocation only after the rebalance), so their work since the commit at the rebalance's start
   * is dropped; it shares the transaction with the kept tasks' work.
   */
  async revoking(running: ActiveTask[]): Promise<boolean> {
    await this.transaction.rollBack(running, false);
    return false;
  }

  /**
   * Cooperative rebalancing tells of a revocation before the new owner can read the offsets, so
   * the work is committed rather than dropped; the one transaction holds every task's work since
   * the last commit, so every running task commits with the revoked (as Kafka Streams' EOS v2).
   */
  onRevocation(_revoked: ActiveTask[], running: ActiveTask[]): ActiveTask[] {
    return running;
  }

  /** The task's records since the last commit are in the thread's transaction. */
  async beforeRecreate(task: ActiveTask, running: ActiveTask[]): Promise<void> {
    if (task.state === 'running') await this.transaction.rollBack(running, false);
  }
}

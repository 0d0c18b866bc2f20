// exactly_once (Kafka Streams' exactly_once, "alpha"): one transactional producer per task, its
// transactional id <applicationId>-<taskId> fencing the task's earlier owner; each due task commits
// its own transaction with its input offsets. A task whose producer failed is created again with
// a new producer, from what Kafka holds.
import type { TaskProducer } from '../kafka/producers.ts';
import {
  commitTaskTransaction,
  type GuaranteeDeps,
  type ProcessingGuarantee,
  rollBackTask,
  type TaskFailure,
} from './processing-guarantee.ts';
import type { ActiveTask } from './task.ts';

export class ExactlyOnce implements ProcessingGuarantee {
  readonly name = 'exactly_once';
  readonly fencingRecreatesTask = true;

  constructor(
    private readonly deps: GuaranteeDeps,
    private readonly newProducer: (transactionalId: string) => TaskProducer,
  ) {}

  async connect(): Promise<void> {}

  /** Each task closes its own producer. */
  async close(): Promise<void> {}

  producerFor(taskId: string): TaskProducer {
    return this.newProducer(this.transactionalIdFor(taskId));
  }

  transactionalIdFor(taskId: string): string {
    return `${this.deps.config.applicationId}-${taskId}`;
  }

  joined(): void {}

  async commit(due: ActiveTask[]): Promise<void> {
    await Promise.all(due.map((t) => commitTaskTransaction(this.deps, t)));
  }

  async rollBack(task: ActiveTask, failure: TaskFailure): Promise<void> {
    await rollBackTask(this.deps, task, {
      fenced: failure.fenced,
      rebuild: failure.producerBroken,
      transactional: true,
    });
  }

  async revoking(): Promise<boolean> {
    return true;
  }

  /** Each task's work is its own: only the revoked commit. */
  onRevocation(revoked: ActiveTask[]): ActiveTask[] {
    return revoked;
  }

  async beforeRecreate(): Promise<void> {}
}

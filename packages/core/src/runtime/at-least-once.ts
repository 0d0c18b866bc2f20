// at_least_once: one idempotent producer shared by the thread's tasks; a commit waits for the
// tasks' sends to be acknowledged, then commits their input offsets through the consumer. A
// failed task goes back to its last commit; a failed send replaces the shared producer.
import type { TopicPartitionOffset } from '../kafka/admin.ts';
import type { TaskProducer } from '../kafka/producers.ts';
import {
  type GuaranteeDeps,
  type ProcessingGuarantee,
  rollBackTask,
  type TaskFailure,
} from './processing-guarantee.ts';
import type { ActiveTask } from './task.ts';

/** kafka/producers.ts' SharedProducer as the guarantee uses it. */
export interface SharedTaskProducer extends TaskProducer {
  connect(): Promise<void>;
  /** Replaces the kafkajs producer, whose state is unknown after a failure. */
  reset(): Promise<void>;
}

export class AtLeastOnce implements ProcessingGuarantee {
  readonly name = 'at_least_once';
  readonly fencingRecreatesTask = true;

  constructor(
    private readonly deps: GuaranteeDeps,
    private readonly producer: SharedTaskProducer,
  ) {}

  connect(): Promise<void> {
    return this.producer.connect();
  }

  close(): Promise<void> {
    return this.producer.close();
  }

  producerFor(): TaskProducer {
    return this.producer;
  }

  transactionalIdFor(): undefined {
    return undefined;
  }

  joined(): void {}

  async commit(due: ActiveTask[]): Promise<void> {
    const sent = new Map<ActiveTask, TopicPartitionOffset[]>();
    for (const rt of due) {
      try {
        sent.set(rt, await rt.sendForCommit());
      } catch (error) {
        await this.deps.onCommitError(rt, error);
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

  async rollBack(task: ActiveTask, failure: TaskFailure): Promise<void> {
    if (failure.producerBroken) {
      // The other tasks' sent records are acknowledged; their unsent ones go out through the new
      // producer.
      this.deps.logger.warn(
        { taskId: task.id },
        'replacing the shared producer, whose state is unknown after the failure',
      );
      await this.producer.reset();
    }
    await rollBackTask(this.deps, task, { fenced: failure.fenced, rebuild: false, transactional: false });
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

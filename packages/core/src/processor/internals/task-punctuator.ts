// A task's punctuation: the schedules its processors made (punctuation.ts) fired by stream time
// or wall-clock time, each punctuator's errors judged by the processing exception handler and its
// asynchronous results tracked as the task's pending work.
import type { Cancellable, PunctuationType, Punctuator } from '../processor.ts';
import type { CommitPoint } from './commit-point.ts';
import type { TaskExceptionHandling } from './exception-handling.ts';
import type { PendingWork } from './pending-work.ts';
import type { ProcessorRuntimeNode } from './processor-nodes.ts';
import { type PunctuationQueue, TaskPunctuation } from './punctuation.ts';
import type { TaskRouting } from './task-routing.ts';

export interface TaskPunctuatorDeps {
  point: CommitPoint;
  errors: TaskExceptionHandling;
  routing: TaskRouting;
  work: PendingWork;
  now: () => number;
  /** Punctuators fired (the thread's punctuate metrics). */
  onPunctuate?: ((count: number) => void) | undefined;
}

export class TaskPunctuator {
  readonly schedules = new TaskPunctuation<ProcessorRuntimeNode>();

  constructor(private readonly deps: TaskPunctuatorDeps) {}

  /** After the processors' init(): what they scheduled is what a rollback returns to. */
  initialized(): void {
    this.schedules.committed();
    this.deps.point.listen(this.schedules);
  }

  schedule(
    node: ProcessorRuntimeNode,
    intervalMs: number,
    type: PunctuationType,
    punctuator: Punctuator,
  ): Cancellable {
    return this.schedules.schedule(node, intervalMs, type, punctuator, this.deps.now);
  }

  /** Fires the stream-time punctuators due at the task's stream time. */
  streamTime(): void | Promise<void> {
    const streamTimeMs = this.deps.point.streamTimeMs;
    if (this.schedules.streamTime.size === 0 || streamTimeMs < 0) return;
    return this.fire(this.schedules.streamTime, streamTimeMs);
  }

  /** Fires the wall-clock punctuators due at `now`. */
  wallClock(now: number): void | Promise<void> {
    if (this.schedules.wallClock.size === 0) return;
    return this.fire(this.schedules.wallClock, now);
  }

  private fire(queue: PunctuationQueue<ProcessorRuntimeNode>, now: number): void | Promise<void> {
    const { point, errors, routing, work } = this.deps;
    const wrap = (owner: ProcessorRuntimeNode, error: unknown) =>
      routing.wrapError(owner, error, 'while punctuating');
    const fired = this.schedules.fire(queue, now, {
      onDue: (count) => {
        point.needsCommit = true;
        this.deps.onPunctuate?.(count);
      },
      handled: (owner, error) => errors.punctuation(error, owner.name),
      wrap,
      track: (result, owner) =>
        work.track(errors.punctuationAsync(result, owner.name), (error) => wrap(owner, error)),
    });
    if (fired && work.busy) return work.drain();
  }
}

// How a task passes a record from a node to its children, and what a processor's error becomes:
// the synchronous processor's error goes to the processing exception handler at once, a
// processor's promise is tracked (PendingWork) until the task drains it.
import { ProcessingError, SerdeError, StreamsError } from '../../errors.ts';
import type { FixedKeyRecord, Record } from '../record.ts';
import type { TaskExceptionHandling } from './exception-handling.ts';
import { isPromise, type PendingWork } from './pending-work.ts';
import type { RuntimeNodeRef } from './processor-context-impl.ts';
import type { InputRecord } from './records.ts';

/** processor-nodes.ts' RuntimeNode, as routing sees it (that module imports this one's users). */
interface RuntimeNode extends RuntimeNodeRef {
  readonly children: RuntimeNode[];
  readonly childByName: Map<string, RuntimeNode>;
  process(record: Record<unknown, unknown>): void | Promise<void>;
}

export class TaskRouting {
  constructor(
    private readonly taskId: string,
    private readonly errors: TaskExceptionHandling,
    private readonly work: PendingWork,
    /** The input record being processed; undefined while punctuating. */
    private readonly current: () => InputRecord | undefined,
  ) {}

  forward(
    from: RuntimeNodeRef,
    record: Record<unknown, unknown> | FixedKeyRecord<unknown, unknown>,
    childName?: string,
  ): void {
    const node = from as RuntimeNode;
    const rec = record as Record<unknown, unknown>;
    if (childName !== undefined) {
      const child = node.childByName.get(childName);
      if (child === undefined) {
        throw new ProcessingError(
          this.taskId,
          node.name,
          `forwarding to '${childName}', which is not one of its children (${node.children.map((c) => c.name).join(', ') || 'none'})`,
        );
      }
      this.dispatch(child, rec);
      return;
    }
    const children = node.children;
    for (let i = 0; i < children.length; i++) this.dispatch(children[i]!, rec);
  }

  private dispatch(node: RuntimeNode, record: Record<unknown, unknown>): void {
    let result: void | Promise<void>;
    try {
      result = node.process(record);
    } catch (error) {
      if (this.errors.processing(error, node.name, this.current(), record)) return;
      throw this.wrapError(node, error, this.describeCurrent());
    }
    if (isPromise(result)) {
      // The record's description now: by the time the promise settles the task has moved on.
      const detail = this.describeCurrent();
      const handled = this.errors.processingAsync(result, node.name, this.current(), record);
      this.work.track(handled, (error) => this.wrapError(node, error, detail));
    }
  }

  describeCurrent(): string {
    const r = this.current();
    return r === undefined ? 'while punctuating' : `processing ${r.topic}-${r.partition} offset ${r.offset}`;
  }

  wrapError(node: RuntimeNodeRef, error: unknown, detail: string): StreamsError {
    // Errors that already say where they happened pass unchanged; a bare serde error gets the node.
    if (error instanceof StreamsError && !(error instanceof SerdeError)) return error;
    return new ProcessingError(this.taskId, node.name, detail, { cause: error });
  }
}

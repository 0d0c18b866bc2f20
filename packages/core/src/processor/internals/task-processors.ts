// The lifecycle of a task's processors: init() once each, in topology order, before the first
// record; close() each at the task's close, only if they were initialized, every one of them even
// when one fails (the first error is the task's, named with its node).
import type { ProcessorRuntimeNode } from './processor-nodes.ts';
import type { TaskRouting } from './task-routing.ts';

export class TaskProcessors {
  private initializedOnce = false;

  constructor(
    private readonly processors: readonly ProcessorRuntimeNode[],
    private readonly routing: TaskRouting,
  ) {}

  get initialized(): boolean {
    return this.initializedOnce;
  }

  /** Calls each processor's init(); false (and nothing called) when that was done already. */
  init(): boolean {
    if (this.initializedOnce) return false;
    this.initializedOnce = true;
    for (const node of this.processors) {
      try {
        node.processor.init?.(node.context);
      } catch (error) {
        throw this.routing.wrapError(node, error, 'in init()');
      }
    }
    return true;
  }

  /** Calls each initialized processor's close(); returns the first error instead of throwing it. */
  async close(): Promise<unknown> {
    if (!this.initializedOnce) return undefined;
    let firstError: unknown;
    for (const node of this.processors) {
      try {
        await node.processor.close?.();
      } catch (error) {
        firstError ??= this.routing.wrapError(node, error, 'in close()');
      }
    }
    return firstError;
  }
}

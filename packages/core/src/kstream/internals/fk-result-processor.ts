import type { Processor, ProcessorContext } from '../../processor/processor.ts';
import type { Record } from '../../processor/record.ts';
import { Change } from './change.ts';

/**
 * The foreign-key join's result table when nothing reads its store (Kafka Streams' KTableSource
 * without a store): each result or tombstone as a change without an old value.
 */
export class FkJoinResultProcessor implements Processor<unknown, unknown, unknown, unknown> {
  private ctx!: ProcessorContext<unknown, unknown>;
  init(context: ProcessorContext<unknown, unknown>): void {
    this.ctx = context;
  }
  process(record: Record<unknown, unknown>): void {
    this.ctx.forward(record.withValue(new Change(record.value ?? null, null)));
  }
}

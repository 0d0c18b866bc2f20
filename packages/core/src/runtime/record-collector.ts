import type { OutputRecord, RecordCollector } from '../processor/internals/stream-task.ts';

/**
 * Buffers a task's output between flushes: kafkajs sends one request per send() call and has no
 * linger, so records are sent in batches (at the end of each input batch and at each commit).
 */
export class BufferingRecordCollector implements RecordCollector {
  private pending: OutputRecord[] = [];

  send(record: OutputRecord): void {
    this.pending.push(record);
  }

  get size(): number {
    return this.pending.length;
  }

  drain(): OutputRecord[] {
    const out = this.pending;
    this.pending = [];
    return out;
  }

  /** Drops unsent output of a transaction that is being rolled back. */
  clear(): void {
    this.pending = [];
  }
}

import { StreamsError } from '../../errors.ts';
import type { Processor, ProcessorContext } from '../../processor/processor.ts';
import { Record } from '../../processor/record.ts';
import type { Eviction, TimeOrderedKeyValueBuffer } from '../../state/time-ordered-key-value-buffer.ts';
import type { Windowed } from '../../windowed.ts';
import type { BufferFullStrategy, BufferTimeDefinition } from '../suppressed.ts';
import { Change } from './change.ts';
import { ObservedStreamTime } from './observed-stream-time.ts';

export interface SuppressionSpec {
  readonly nodeName: string;
  readonly storeName: string;
  readonly maxRecords: number;
  readonly maxBytes: number;
  /** The grace period (final results) or the time limit. */
  readonly suppressDurationMs: number;
  readonly timeDefinition: BufferTimeDefinition;
  readonly bufferFullStrategy: BufferFullStrategy;
  readonly safeToDropTombstones: boolean;
}

type Ctx = ProcessorContext<unknown, Change<unknown>>;

/**
 * Kafka Streams' KTableSuppressProcessor. Each update goes into the buffer at its buffer time (the
 * window end, or the record's timestamp); then every entry whose buffer time is at most stream time
 * minus the suppress duration is emitted, oldest first, with the timestamp and headers of its latest
 * update. Stream time is the largest timestamp this processor has seen. Over a bound, the oldest are
 * emitted early or the task fails, as configured.
 */
export class KTableSuppressProcessor
  implements Processor<unknown, Change<unknown>, unknown, Change<unknown>>
{
  private ctx!: Ctx;
  private buffer!: TimeOrderedKeyValueBuffer<unknown, unknown>;
  private observedStreamTime!: ObservedStreamTime;

  constructor(private readonly spec: SuppressionSpec) {}

  init(context: Ctx): void {
    this.ctx = context;
    this.buffer = context.getStateStore(this.spec.storeName);
    this.observedStreamTime = new ObservedStreamTime(context);
  }

  process(record: Record<unknown, Change<unknown>>): void | Promise<void> {
    // The buffer's time index is rebuilt after the restore and after a rollback (whose stream time
    // went back to the last commit's with it).
    if (this.buffer.needsLoad) return this.buffer.load().then(() => this.suppress(record));
    this.suppress(record);
  }

  private suppress(record: Record<unknown, Change<unknown>>): void {
    this.observedStreamTime.observe(record.timestamp);
    const time =
      this.spec.timeDefinition === 'window-end'
        ? (record.key as Windowed<unknown>).window.end
        : record.timestamp;
    const metadata = this.ctx.recordMetadata();
    this.buffer.put(time, record.key, record.value, {
      timestamp: record.timestamp,
      offset: metadata?.offset ?? -1,
      topic: metadata?.topic ?? '',
      partition: metadata?.partition ?? -1,
      headers: record.headers,
    });
    this.enforceConstraints();
  }

  private enforceConstraints(): void {
    const expiryTime = this.observedStreamTime.ms - this.spec.suppressDurationMs;
    const emit = (eviction: Eviction<unknown, unknown>) => this.emit(eviction);
    this.buffer.evictWhile(() => this.buffer.minTimestamp() <= expiryTime, emit);
    if (!this.overCapacity()) return;
    if (this.spec.bufferFullStrategy === 'emit') {
      this.buffer.evictWhile(() => this.overCapacity(), emit);
      return;
    }
    const { nodeName, maxRecords, maxBytes } = this.spec;
    throw new StreamsError(
      `${nodeName} buffer exceeded its max capacity. Currently [${this.buffer.numRecords()}/${maxRecords}] ` +
        `records and [${this.buffer.bufferSize()}/${maxBytes}] bytes. Give the suppression a larger ` +
        'BufferConfig (or BufferConfig.unbounded()), or use emitEarlyWhenFull() if early results are acceptable.',
    );
  }

  private overCapacity(): boolean {
    return this.buffer.numRecords() > this.spec.maxRecords || this.buffer.bufferSize() > this.spec.maxBytes;
  }

  private emit({ key, value, context }: Eviction<unknown, unknown>): void {
    // Final results drop the deletion of a window nobody downstream has seen.
    if (value.newValue === null && this.spec.safeToDropTombstones) return;
    this.ctx.forward(
      new Record(key, new Change(value.newValue, value.oldValue), context.timestamp, context.headers),
    );
  }
}

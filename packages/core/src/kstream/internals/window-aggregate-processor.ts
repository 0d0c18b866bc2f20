import type { Processor, ProcessorContext } from '../../processor/processor.ts';
import type { Record } from '../../processor/record.ts';
import { timestampedWindowView, type ValueAndTimestamp } from '../../state/value-and-timestamp.ts';
import type { TypedWindowStore } from '../../state/window-store.ts';
import type { Windowed } from '../../windowed.ts';
import type { TimeWindows } from '../time-windows.ts';
import { Change } from './change.ts';
import { droppedRecord } from './dropped-records.ts';
import { ObservedStreamTime } from './observed-stream-time.ts';
import { TimestampedTupleForwarder } from './timestamped-tuple-forwarder.ts';
import type { WindowCloseEmitter } from './window-close-emitter.ts';

type Ctx = ProcessorContext<Windowed<unknown>, Change<unknown>>;

/**
 * What a time or sliding window aggregation opens at init, in this order: its observed stream
 * time (registered with the task's commits and rollbacks), the timestamped view of its window
 * store, and the forwarder over that view (through the store's record cache, if any).
 */
export function openWindowAggregation(context: Ctx, storeName: string) {
  const observedStreamTime = new ObservedStreamTime(context);
  const store = timestampedWindowView(context.getStateStore<TypedWindowStore<unknown, unknown>>(storeName));
  const forwarder = new TimestampedTupleForwarder(
    context as ProcessorContext<unknown, unknown>,
    store,
    storeName,
  );
  return { observedStreamTime, store, forwarder };
}

/**
 * Kafka Streams' KStreamWindowAggregate: adds each record to every window that contains it and
 * forwards each window's new aggregate, stamped with the largest timestamp in it. A window takes
 * records until stream time passes its end plus the grace; later records are dropped (late).
 */
export class WindowAggregateProcessor
  implements Processor<unknown, unknown, Windowed<unknown>, Change<unknown>>
{
  private ctx!: Ctx;
  private store!: TypedWindowStore<unknown, ValueAndTimestamp<unknown>>;
  private forwarder!: TimestampedTupleForwarder;
  private observedStreamTime!: ObservedStreamTime;

  constructor(
    private readonly storeName: string,
    private readonly windows: TimeWindows,
    private readonly initializer: () => unknown,
    private readonly aggregator: (key: unknown, value: unknown, aggregate: unknown) => unknown,
    /** EmitStrategy.onWindowClose: no updates, each window's result once it closes. */
    private readonly onWindowClose?: WindowCloseEmitter,
  ) {}

  init(context: Ctx): void {
    this.ctx = context;
    ({
      observedStreamTime: this.observedStreamTime,
      store: this.store,
      forwarder: this.forwarder,
    } = openWindowAggregation(context, this.storeName));
    this.onWindowClose?.init(context as ProcessorContext<unknown, unknown>);
  }

  process(record: Record<unknown, unknown>): void | Promise<void> {
    // Unlike the plain aggregations, Kafka Streams' windowed ones skip only null keys: a null value
    // reaches the aggregator (a windowed count counts it; the differential harness showed it).
    if (record.key === null || record.key === undefined) {
      droppedRecord(this.ctx, 'null key');
      return;
    }
    const closeTime = this.observedStreamTime.observe(record.timestamp) - this.windows.graceMs;
    for (const window of this.windows.windowsFor(record.timestamp)) {
      if (window.end <= closeTime) {
        droppedRecord(this.ctx, 'late: its window has closed');
        continue;
      }
      const previous = this.store.fetch(record.key, window.start);
      const aggregate = this.aggregator(
        record.key,
        record.value,
        previous === undefined ? this.initializer() : previous.value,
      );
      const timestamp =
        previous === undefined ? record.timestamp : Math.max(record.timestamp, previous.timestamp);
      const absent = aggregate === null || aggregate === undefined;
      this.store.put(record.key, absent ? null : { value: aggregate, timestamp }, window.start);
      if (this.onWindowClose !== undefined) continue;
      this.forwarder.maybeForward(
        record
          .withKey<unknown>({ key: record.key, window })
          .withValue(new Change(absent ? null : aggregate, previous?.value ?? null))
          .withTimestamp(timestamp),
      );
    }
    return this.onWindowClose?.maybeEmit(this.ctx, this.store, record, closeTime);
  }
}

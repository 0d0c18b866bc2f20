import type { Processor, ProcessorContext } from '../../processor/processor.ts';
import type { Record } from '../../processor/record.ts';
import type { ValueAndTimestamp } from '../../state/value-and-timestamp.ts';
import type { TypedWindowStore } from '../../state/window-store.ts';
import type { Window, Windowed } from '../../windowed.ts';
import type { SlidingWindows } from '../sliding-windows.ts';
import { Change } from './change.ts';
import { droppedRecord } from './dropped-records.ts';
import type { ObservedStreamTime } from './observed-stream-time.ts';
import type { TimestampedTupleForwarder } from './timestamped-tuple-forwarder.ts';
import { openWindowAggregation } from './window-aggregate-processor.ts';

type Ctx = ProcessorContext<Windowed<unknown>, Change<unknown>>;
/** A window's aggregate and its largest record timestamp; undefined when it has none (Java's null). */
type Agg = ValueAndTimestamp<unknown> | undefined;
type In = Record<unknown, unknown>;

/** What a record's scan over its key's windows found (KIP-450's bookkeeping). */
interface Scan {
  starts: Set<number>;
  leftAgg: Agg;
  rightAgg: Agg;
  leftCreated: boolean;
  rightCreated: boolean;
  previousTimestamp: number | undefined;
}

const absent = (value: unknown): boolean => value === null || value === undefined;
const make = (value: unknown, timestamp: number): Agg => (absent(value) ? undefined : { value, timestamp });

/**
 * Kafka Streams' KStreamSlidingWindowAggregate (KIP-450). A record at t updates every existing
 * window that contains it, creates its left window [t - d, t] (holding the records of the last d
 * ms) and, when later records are within d, its right window [t + 1, t + 1 + d]; it also creates
 * the right window of the record before it if t falls in it. Windows without records never exist.
 * The key's windows are scanned newest first, as Kafka Streams does over its stores (which decides
 * the order of the updates sent). Records before d (whose left window would start before 0) all
 * go to [0, d]. A record is late when stream time minus grace is past t + d.
 */
export class SlidingWindowAggregateProcessor
  implements Processor<unknown, unknown, Windowed<unknown>, Change<unknown>>
{
  private ctx!: Ctx;
  private store!: TypedWindowStore<unknown, ValueAndTimestamp<unknown>>;
  private forwarder!: TimestampedTupleForwarder;
  private observedStreamTime!: ObservedStreamTime;
  private readonly d: number;

  constructor(
    private readonly storeName: string,
    private readonly windows: SlidingWindows,
    private readonly initializer: () => unknown,
    private readonly aggregator: (key: unknown, value: unknown, aggregate: unknown) => unknown,
  ) {
    this.d = windows.timeDifferenceMs;
  }

  init(context: Ctx): void {
    this.ctx = context;
    ({
      observedStreamTime: this.observedStreamTime,
      store: this.store,
      forwarder: this.forwarder,
    } = openWindowAggregation(context, this.storeName));
  }

  async process(record: In): Promise<void> {
    if (absent(record.key) || absent(record.value)) {
      droppedRecord(this.ctx, 'null key or value');
      return;
    }
    const closeTime = this.observedStreamTime.observe(record.timestamp) - this.windows.graceMs;
    if (record.timestamp + this.d < closeTime) {
      droppedRecord(this.ctx, 'late: its windows have closed');
      return;
    }
    if (record.timestamp < this.d) await this.processEarly(record, closeTime);
    else await this.processReverse(record, closeTime);
  }

  private async processReverse(record: In, closeTime: number): Promise<void> {
    const t = record.timestamp;
    const scan: Scan = {
      starts: new Set(),
      leftAgg: undefined,
      rightAgg: undefined,
      leftCreated: false,
      rightCreated: false,
      previousTimestamp: undefined,
    };
    const found = await this.windowsOf(record.key, Math.max(0, t - 2 * this.d), t + 1, true);
    for (const { timestamp: start, value } of found) {
      scan.starts.add(start);
      const end = start + this.d;
      if (start === t + 1) {
        scan.rightCreated = true;
      } else if (end > t) {
        scan.rightAgg ??= value;
        this.updateAndForward(start, value, record, closeTime);
      } else if (end === t) {
        scan.leftCreated = true;
        this.updateAndForward(start, value, record, closeTime);
        // A record at t already made this window's neighbours: nothing left to create.
        if (value.timestamp >= t) return;
        scan.previousTimestamp = value.timestamp;
      } else {
        scan.leftAgg = value;
        scan.previousTimestamp = value.timestamp;
        break;
      }
    }
    this.createWindows(record, closeTime, scan);
  }

  /** Records before d: their left windows would start before 0, so [0, d] holds them all. */
  private async processEarly(record: In, closeTime: number): Promise<void> {
    const t = record.timestamp;
    const starts = new Set<number>();
    let combined: { start: number; value: ValueAndTimestamp<unknown> } | undefined;
    let rightAgg: Agg;
    let rightCreated = false;
    let previousTimestamp: number | undefined;
    for (const { timestamp: start, value } of await this.windowsOf(record.key, 0, t + 1, false)) {
      starts.add(start);
      if (start === 0) {
        combined = { start, value };
        if (value.timestamp < t) previousTimestamp = value.timestamp;
      } else if (start <= t) {
        rightAgg = value;
        this.updateAndForward(start, value, record, closeTime);
      } else {
        rightCreated = true;
      }
    }
    // Without a right window found, [0, d] holds only later records when its newest is after t.
    if (rightAgg === undefined && combined !== undefined && combined.value.timestamp > t) {
      rightAgg = combined.value;
    }
    if (!rightCreated && rightAgg !== undefined && rightAgg.timestamp > t)
      this.createRightWindow(t, rightAgg, record);
    if (previousTimestamp !== undefined && !starts.has(previousTimestamp + 1)) {
      this.updateAndForward(previousTimestamp + 1, make(this.initializer(), t), record, closeTime);
    }
    if (combined === undefined) this.updateAndForward(0, make(this.initializer(), t), record, closeTime);
    else this.updateAndForward(combined.start, combined.value, record, closeTime);
  }

  private createWindows(record: In, closeTime: number, scan: Scan): void {
    const t = record.timestamp;
    const previous = scan.previousTimestamp;
    // The previous record's right window, if t falls in it and it does not exist yet.
    if (previous !== undefined && !scan.starts.has(previous + 1) && previous + 1 + this.d >= t) {
      this.updateAndForward(previous + 1, make(this.initializer(), t), record, closeTime);
    }
    if (!scan.leftCreated) {
      const leftHasRecords = previous !== undefined && t - this.d <= previous;
      const initial = leftHasRecords ? make(scan.leftAgg?.value, t) : make(this.initializer(), t);
      this.updateAndForward(t - this.d, initial, record, closeTime);
    }
    if (!scan.rightCreated && scan.rightAgg !== undefined && scan.rightAgg.timestamp > t) {
      this.createRightWindow(t, scan.rightAgg, record);
    }
  }

  /** The record's right window holds the later records only, so it starts with their aggregate. */
  private createRightWindow(t: number, rightAgg: ValueAndTimestamp<unknown>, record: In): void {
    const start = t + 1;
    this.store.put(record.key, rightAgg, start);
    this.forward(record, { start, end: start + this.d }, rightAgg.value, null, rightAgg.timestamp);
  }

  private updateAndForward(start: number, current: Agg, record: In, closeTime: number): void {
    const end = start + this.d;
    if (end < closeTime) {
      droppedRecord(this.ctx, 'late: its window has closed');
      return;
    }
    const oldAgg = current === undefined ? null : current.value;
    const newAgg = this.aggregator(record.key, record.value, oldAgg);
    const timestamp =
      current === undefined ? record.timestamp : Math.max(record.timestamp, current.timestamp);
    this.store.put(record.key, make(newAgg, timestamp) ?? null, start);
    this.forward(record, { start, end }, newAgg, oldAgg, timestamp);
  }

  private forward(record: In, window: Window, newAgg: unknown, oldAgg: unknown, timestamp: number): void {
    this.forwarder.maybeForward(
      record
        .withKey<unknown>({ key: record.key, window })
        .withValue(new Change(absent(newAgg) ? null : newAgg, oldAgg ?? null))
        .withTimestamp(timestamp),
    );
  }

  /** A key's windows starting in [from, to], read before any is updated (a snapshot, as an iterator). */
  private async windowsOf(
    key: unknown,
    from: number,
    to: number,
    backward: boolean,
  ): Promise<Array<{ timestamp: number; value: ValueAndTimestamp<unknown> }>> {
    const out = [];
    const range = backward ? this.store.backwardFetch(key, from, to) : this.store.fetch(key, from, to);
    for await (const entry of range) out.push(entry);
    return out;
  }
}

// The processors of a stream-stream join, as Kafka Streams 4.4 runs them: on each side a
// KSTREAM-WINDOWED processor forwards the record and then keeps it in its side's window store,
// and a join processor probes the other side's store. A left or outer side whose record found no
// partner puts it into the store both join processors share; it is joined with null only once its
// window has closed (Kafka Streams since 3.1), when a later record scans that store.
import type { Processor, ProcessorContext } from '../../processor/processor.ts';
import type { Record } from '../../processor/record.ts';
import { headersWindowView } from '../../state/value-and-timestamp.ts';
import type { ValueTimestampHeaders } from '../../state/value-timestamp-headers.ts';
import type { TypedWindowStore, WindowStore } from '../../state/window-store.ts';
import type { JoinWindows } from '../join-windows.ts';
import { droppedRecord } from './dropped-records.ts';
import { type JoinTimeTracker, type JoinTimeTrackers, NO_MIN_TIME } from './join-time-tracker.ts';
import type { OuterJoinStore } from './outer-join-store.ts';
import type { ValueJoinerWithKey } from './value-joiner.ts';

type Ctx = ProcessorContext<unknown, unknown>;
type AnyRecord = Record<unknown, unknown>;

function isAbsent(value: unknown): value is null | undefined {
  return value === null || value === undefined;
}

/**
 * Kafka Streams' skip test `minTime + after + grace >= streamTime`, in its long arithmetic: from
 * Long.MAX (nothing was waiting at the last scan, or the task just started with a restored store)
 * a positive offset overflows, so the scan runs.
 */
function nothingToEmit(tracker: JoinTimeTracker, offset: number): boolean {
  if (tracker.minTime === NO_MIN_TIME) return offset <= 0;
  return tracker.minTime + offset >= tracker.streamTime;
}

/**
 * Kafka Streams' KStreamJoinWindow: forwards first, then stores the record (null keys are never
 * joined, so never stored; a null value is ignored by the store). The put waits in the join's
 * queue behind the probe the forward started, as Kafka Streams runs them in that order.
 */
export class KStreamJoinWindowProcessor implements Processor<unknown, unknown, unknown, unknown> {
  private ctx!: Ctx;
  private store!: WindowStore<unknown, unknown>;
  private tracker!: JoinTimeTracker;

  constructor(
    private readonly storeName: string,
    private readonly trackers: JoinTimeTrackers,
  ) {}

  /** The store seen with headers, when dslStoreFormat 'HEADERS' made it headers-aware. */
  private withHeaders: WindowStore<unknown, ValueTimestampHeaders<unknown>> | undefined;

  init(context: Ctx): void {
    this.ctx = context;
    this.store = context.getStateStore(this.storeName);
    this.withHeaders = headersWindowView(this.store as TypedWindowStore<unknown, unknown>);
    this.tracker = this.trackers.get(context);
  }

  process(record: AnyRecord): void | Promise<void> {
    this.ctx.forward(record);
    if (isAbsent(record.key)) return;
    const { withHeaders } = this;
    if (withHeaders === undefined || isAbsent(record.value)) {
      return this.tracker.enqueue(() => this.store.put(record.key, record.value, record.timestamp));
    }
    // Kafka Streams 4.4 keeps the record's headers beside its value (ValueTimestampHeaders.make).
    const value = { value: record.value, timestamp: record.timestamp, headers: record.headers };
    return this.tracker.enqueue(() => withHeaders.put(record.key, value, record.timestamp));
  }

  close(): void {
    this.trackers.remove(this.ctx.taskId);
  }
}

export interface JoinSideOptions {
  /** Whether this processor is the left (this) side of the join. */
  readonly left: boolean;
  /** Whether this side's unmatched records are joined with null (left side of a left join, both of an outer). */
  readonly outer: boolean;
  readonly otherStoreName: string;
  /** The shared store of a left or outer join. */
  readonly outerStoreName: string | undefined;
  readonly windows: JoinWindows;
  /** Always `(key, leftValue, rightValue)`, whichever side this is. */
  readonly joiner: ValueJoinerWithKey<unknown, unknown, unknown, unknown>;
  readonly trackers: JoinTimeTrackers;
}

/**
 * Kafka Streams' KStreamKStreamJoin processor, for either side: the left side probes the right
 * store in [t - before, t + after], the right side mirrors both bounds. Each step runs in the
 * join's queue (see JoinTimeTracker.enqueue).
 */
export class KStreamKStreamJoinProcessor implements Processor<unknown, unknown, unknown, unknown> {
  private ctx!: Ctx;
  private otherStore!: WindowStore<unknown, unknown>;
  private outerStore: OuterJoinStore | undefined;
  private tracker!: JoinTimeTracker;
  private readonly beforeMs: number;
  private readonly afterMs: number;
  private readonly graceMs: number;

  constructor(private readonly options: JoinSideOptions) {
    const { windows, left } = options;
    this.beforeMs = left ? windows.beforeMs : windows.afterMs;
    this.afterMs = left ? windows.afterMs : windows.beforeMs;
    this.graceMs = windows.graceMs;
  }

  init(context: Ctx): void {
    this.ctx = context;
    this.otherStore = context.getStateStore(this.options.otherStoreName);
    const { outerStoreName } = this.options;
    this.outerStore =
      outerStoreName === undefined ? undefined : context.getStateStore<OuterJoinStore>(outerStoreName);
    this.tracker = this.options.trackers.get(context);
  }

  process(record: AnyRecord): Promise<void> {
    return this.tracker.enqueue(() => this.join(record));
  }

  close(): void {
    this.options.trackers.remove(this.ctx.taskId);
  }

  /** The joiner's result for a record of this side and one of the other (null: none). */
  private joined(key: unknown, thisValue: unknown, otherValue: unknown): unknown {
    const { joiner, left } = this.options;
    return left ? joiner(key, thisValue, otherValue) : joiner(key, otherValue, thisValue);
  }

  private async join(record: AnyRecord): Promise<void> {
    const { key, value, timestamp } = record;
    const tracker = this.tracker;
    tracker.advanceStreamTime(timestamp);
    if (this.options.outer && isAbsent(key) && !isAbsent(value)) {
      // KIP-962: nothing can join a null key, so its result is final at once.
      this.ctx.forward(record.withValue(this.joined(key, value, null)));
      return;
    }
    if (isAbsent(key) || isAbsent(value)) {
      droppedRecord(this.ctx, 'null key or value');
      return;
    }
    if (timestamp === tracker.streamTime && this.outerStore !== undefined) {
      await this.emitClosedOuterRecords(this.outerStore, record);
    }
    const from = Math.max(0, timestamp - this.beforeMs);
    const to = Math.max(0, timestamp + this.afterMs);
    let matched = false;
    for await (const other of this.otherStore.fetch(key, from, to)) {
      matched = true;
      // The other record is joined now: it no longer waits for a null-join.
      this.outerStore?.deleteIfPresent(key, other.timestamp, !this.options.left);
      const result = this.joined(key, value, other.value);
      this.ctx.forward(record.withValue(result).withTimestamp(Math.max(timestamp, other.timestamp)));
    }
    if (!this.options.outer || matched) return;
    if (this.outerStore === undefined || to < tracker.streamTime) {
      // Its window is already closed (an out-of-order record): no partner can come any more.
      this.ctx.forward(record.withValue(this.joined(key, value, null)));
    } else {
      tracker.updateMinTime(timestamp);
      this.outerStore.put(key, timestamp, { left: this.options.left, value });
    }
  }

  /**
   * Forwards, with their own timestamps, the waiting records whose window has closed, oldest
   * first, and deletes them. An entry is open while t + lookBack + grace >= stream time (lookBack:
   * after for left records, before for right ones); the scan stops once it met an open entry of
   * both sides. Kafka Streams also scans at most once per second of wall clock (an interval it
   * calls a performance setting); kstreams scans whenever a window may have closed, but at most
   * once per input record, which is what Kafka Streams does when a second passes per record.
   */
  private async emitClosedOuterRecords(store: OuterJoinStore, record: AnyRecord): Promise<void> {
    const tracker = this.tracker;
    if (store.rollbacks !== tracker.seenRollbacks) {
      // The task rolled back in place: entries a scan had emitted and deleted are back, and the
      // record that scanned may come again. Scan at the next chance.
      tracker.seenRollbacks = store.rollbacks;
      tracker.lastScan = undefined;
      tracker.minTime = -1;
    }
    if (nothingToEmit(tracker, this.afterMs + this.graceMs)) return;
    const meta = this.ctx.recordMetadata();
    if (meta !== undefined) {
      const input = `${meta.topic}\u0000${meta.partition}\u0000${meta.offset}`;
      if (tracker.lastScan === input) return;
      tracker.lastScan = input;
    }
    tracker.minTime = NO_MIN_TIME;
    const { windows } = this.options;
    let leftOpen = false;
    let rightOpen = false;
    let previous: Buffer | undefined;
    for await (const entry of store.all()) {
      tracker.minTime = entry.timestamp;
      if (leftOpen && rightOpen) break;
      const lookBack = entry.left ? windows.afterMs : windows.beforeMs;
      if (entry.timestamp + lookBack + this.graceMs >= tracker.streamTime) {
        if (entry.left) leftOpen = true;
        else rightOpen = true;
        continue;
      }
      const result = entry.left
        ? this.options.joiner(entry.key, entry.value, null)
        : this.options.joiner(entry.key, null, entry.value);
      this.ctx.forward(record.withKey(entry.key).withValue(result).withTimestamp(entry.timestamp));
      // A list is deleted once all its records were forwarded (Kafka Streams deletes lazily too).
      if (previous !== undefined && !previous.equals(entry.storeKey)) store.delete(previous);
      previous = entry.storeKey;
    }
    if (previous !== undefined) store.delete(previous);
  }
}

import type { KeyValueStore } from '@kstreams/state-store';
import type { ProcessorContext } from '../../processor/processor.ts';
import type { Record } from '../../processor/record.ts';
import type { ValueAndTimestamp } from '../../state/value-and-timestamp.ts';
import type { TypedWindowStore } from '../../state/window-store.ts';
import type { Windowed } from '../../windowed.ts';
import type { TimeWindows } from '../time-windows.ts';
import { Change } from './change.ts';

const LAST_EMIT_KEY = 'lastEmitWindowCloseTime';

/** The store that keeps, per task, the close time up to which windows have been emitted. */
export const lastEmitStoreName = (storeName: string) => `${storeName}-last-emit`;

/**
 * EmitStrategy.onWindowClose for time windows (Kafka Streams' AbstractKStreamTimeWindowAggregate
 * processor): when the close time (stream time minus grace) has moved past windows not yet emitted,
 * their results are read from the window store and forwarded, each with its own timestamp. The
 * close time reached is kept in a logged store (Kafka Streams keeps it in the commit's metadata),
 * so that a restart or a rollback neither repeats nor skips a window. Kafka Streams throttles
 * the range reads by wall clock (1 s by default); we read whenever a new window has closed.
 */
export class WindowCloseEmitter {
  private lastEmit!: KeyValueStore<string, number>;

  constructor(
    private readonly windows: TimeWindows,
    private readonly storeName: string,
  ) {}

  init(context: ProcessorContext<unknown, unknown>): void {
    this.lastEmit = context.getStateStore(lastEmitStoreName(this.storeName));
  }

  maybeEmit(
    ctx: ProcessorContext<Windowed<unknown>, Change<unknown>>,
    store: TypedWindowStore<unknown, ValueAndTimestamp<unknown>>,
    record: Record<unknown, unknown>,
    windowCloseTime: number,
  ): Promise<void> | undefined {
    const last = this.lastEmit.get(LAST_EMIT_KEY) ?? -1;
    if (last !== -1 && last >= windowCloseTime) return undefined;
    const size = this.windows.sizeMs;
    const upper = windowCloseTime - size;
    if (upper < 0) return undefined;
    const lower = last === -1 ? 0 : Math.max(0, last - size) + 1;
    // No window ends in (last, windowCloseTime]: nothing new has closed.
    if (last !== -1 && this.sameWindows(upper, lower - 1)) return undefined;
    return this.emit(ctx, store, record, lower, upper, windowCloseTime);
  }

  private sameWindows(a: number, b: number): boolean {
    const wa = this.windows.windowsFor(a).map((w) => w.start);
    const wb = this.windows.windowsFor(b).map((w) => w.start);
    return wa.length === wb.length && wa.every((start, i) => start === wb[i]);
  }

  private async emit(
    ctx: ProcessorContext<Windowed<unknown>, Change<unknown>>,
    store: TypedWindowStore<unknown, ValueAndTimestamp<unknown>>,
    record: Record<unknown, unknown>,
    lower: number,
    upper: number,
    windowCloseTime: number,
  ): Promise<void> {
    // Kafka Streams keeps these windows in a time-ordered store: they come out by start, then key.
    // The store gives them by key, then start; a stable sort by start gives Kafka Streams' order.
    const closed: { key: Windowed<unknown>; value: ValueAndTimestamp<unknown> }[] = [];
    for await (const entry of store.fetchAll(lower, upper)) closed.push(entry);
    closed.sort((a, b) => a.key.window.start - b.key.window.start);
    for (const { key, value } of closed) {
      ctx.forward(
        record.withKey(key).withValue(new Change(value.value, null)).withTimestamp(value.timestamp),
      );
    }
    this.lastEmit.put(LAST_EMIT_KEY, windowCloseTime);
  }
}

import type { LastWriteTracking, SessionEntry, SessionStore } from '@kstreams/state-store';
import type { Processor, ProcessorContext } from '../../processor/processor.ts';
import { Record } from '../../processor/record.ts';
import type { Windowed } from '../../windowed.ts';
import type { SessionWindows } from '../session-windows.ts';
import { Change } from './change.ts';
import { droppedRecord } from './dropped-records.ts';
import { ObservedStreamTime } from './observed-stream-time.ts';
import { TimestampedTupleForwarder } from './timestamped-tuple-forwarder.ts';

type Ctx = ProcessorContext<Windowed<unknown>, Change<unknown>>;

/**
 * Kafka Streams' KStreamSessionWindowAggregate. A record at t joins every session of its key that
 * ends at or after t - gap and starts at or before t + gap: their aggregates are merged (the
 * merger, starting from the initializer's), each of them is removed and sent as a tombstone, and
 * the merged session [min start, max end] gets the record. Results are stamped with the session's
 * end. A record whose merged session ends before stream time - gap - grace is late and dropped.
 */
export class SessionWindowAggregateProcessor
  implements Processor<unknown, unknown, Windowed<unknown>, Change<unknown>>
{
  private ctx!: Ctx;
  private store!: SessionStore<unknown, unknown> & LastWriteTracking;
  private forwarder!: TimestampedTupleForwarder;
  private observedStreamTime!: ObservedStreamTime;

  constructor(
    private readonly storeName: string,
    private readonly windows: SessionWindows,
    private readonly initializer: () => unknown,
    private readonly aggregator: (key: unknown, value: unknown, aggregate: unknown) => unknown,
    private readonly merger: (key: unknown, aggregate1: unknown, aggregate2: unknown) => unknown,
  ) {}

  init(context: Ctx): void {
    this.ctx = context;
    this.observedStreamTime = new ObservedStreamTime(context);
    this.store = context.getStateStore<SessionStore<unknown, unknown> & LastWriteTracking>(this.storeName);
    this.forwarder = new TimestampedTupleForwarder(
      context as ProcessorContext<unknown, unknown>,
      this.store,
      this.storeName,
    );
  }

  async process(record: Record<unknown, unknown>): Promise<void> {
    const { key, timestamp } = record;
    if (key === null || key === undefined) {
      droppedRecord(this.ctx, 'null key');
      return;
    }
    const { inactivityGapMs: gap, graceMs } = this.windows;
    const closeTime = this.observedStreamTime.observe(timestamp) - graceMs - gap;
    const merged: SessionEntry<unknown, unknown>[] = [];
    let start = timestamp;
    let end = timestamp;
    let aggregate = this.initializer();
    for await (const session of this.store.findSessions(key, timestamp - gap, timestamp + gap)) {
      merged.push(session);
      aggregate = this.merger(key, aggregate, session.value);
      start = Math.min(start, session.key.start);
      end = Math.max(end, session.key.end);
    }
    if (end < closeTime) {
      droppedRecord(this.ctx, 'late: its session has closed');
      return;
    }
    if (start !== timestamp || end !== timestamp) {
      for (const session of merged) {
        this.store.remove(session.key);
        this.forward(record, session.key.start, session.key.end, null, session.value);
      }
    }
    aggregate = this.aggregator(key, record.value, aggregate);
    this.store.put({ key, start, end }, aggregate);
    this.forward(record, start, end, aggregate, null);
  }

  private forward(
    record: Record<unknown, unknown>,
    start: number,
    end: number,
    newAgg: unknown,
    oldAgg: unknown,
  ): void {
    // A new record, as in Kafka Streams: the input's headers are not carried over.
    this.forwarder.maybeForward(
      new Record<unknown, Change<unknown>>(
        { key: record.key, window: { start, end } },
        new Change(newAgg ?? null, oldAgg ?? null),
        end,
      ),
    );
  }
}

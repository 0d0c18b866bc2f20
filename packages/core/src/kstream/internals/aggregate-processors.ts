import type { TypedKeyValueStore } from '@kstreams/state-store';
import type { Processor, ProcessorContext } from '../../processor/processor.ts';
import type { Record } from '../../processor/record.ts';
import { timestampedView, type ValueAndTimestamp } from '../../state/value-and-timestamp.ts';
import { Change } from './change.ts';
import { TimestampedTupleForwarder } from './timestamped-tuple-forwarder.ts';

type Ctx = ProcessorContext<unknown, unknown>;

function isAbsent(value: unknown): value is null | undefined {
  return value === null || value === undefined;
}

/**
 * The grouped aggregations' shared part. As in Kafka Streams, a result carries the largest
 * timestamp of the records that made it: the input's, or the previous aggregate's if that is
 * later (out-of-order input). The aggregate's timestamp is stored with it, so that it survives a
 * restart; its changelog holds the same bytes.
 */
abstract class AggregateProcessor<In> implements Processor<unknown, In, unknown, unknown> {
  private store!: TypedKeyValueStore<unknown, ValueAndTimestamp<unknown>>;
  private forwarder!: TimestampedTupleForwarder;

  constructor(private readonly storeName: string) {}

  init(context: Ctx): void {
    this.store = timestampedView(context.getStateStore<TypedKeyValueStore<unknown, unknown>>(this.storeName));
    this.forwarder = new TimestampedTupleForwarder(context, this.store, this.storeName);
  }

  process(record: Record<unknown, In>): void {
    if (this.skip(record)) return;
    const previous = this.store.get(record.key);
    const old = previous === undefined ? undefined : previous.value;
    const next = this.aggregate(record, old) ?? null;
    const timestamp =
      previous === undefined ? record.timestamp : Math.max(record.timestamp, previous.timestamp);
    if (next === null) this.store.delete(record.key);
    else this.store.put(record.key, { value: next, timestamp });
    this.forwarder.maybeForward(record.withValue(new Change(next, old ?? null)).withTimestamp(timestamp));
  }

  /** Records the aggregation ignores. */
  protected abstract skip(record: Record<unknown, In>): boolean;

  /** The new aggregate; null (or undefined) deletes the row, and the deletion is forwarded. */
  protected abstract aggregate(record: Record<unknown, In>, old: unknown): unknown;
}

/** KStream aggregate/count. Records with a null key or value are skipped. */
export class StreamAggregateProcessor extends AggregateProcessor<unknown> {
  constructor(
    storeName: string,
    private readonly initializer: () => unknown,
    private readonly aggregator: (key: unknown, value: unknown, aggregate: unknown) => unknown,
  ) {
    super(storeName);
  }
  protected skip(record: Record<unknown, unknown>): boolean {
    return isAbsent(record.key) || isAbsent(record.value);
  }
  protected aggregate(record: Record<unknown, unknown>, old: unknown): unknown {
    return this.aggregator(record.key, record.value, old === undefined ? this.initializer() : old);
  }
}

/** KStream reduce: the first value is the initial aggregate. */
export class StreamReduceProcessor extends AggregateProcessor<unknown> {
  constructor(
    storeName: string,
    private readonly reducer: (aggregate: unknown, value: unknown) => unknown,
  ) {
    super(storeName);
  }
  protected skip(record: Record<unknown, unknown>): boolean {
    return isAbsent(record.key) || isAbsent(record.value);
  }
  protected aggregate(record: Record<unknown, unknown>, old: unknown): unknown {
    return old === undefined ? record.value : this.reducer(old, record.value);
  }
}

/**
 * KGroupedTable aggregate/count: subtract the old value's contribution, add the new one's. As in
 * Kafka Streams, there is nothing to subtract from a group that has no aggregate yet.
 */
export class TableAggregateProcessor extends AggregateProcessor<Change<unknown>> {
  constructor(
    storeName: string,
    private readonly initializer: () => unknown,
    private readonly adder: (key: unknown, value: unknown, aggregate: unknown) => unknown,
    private readonly subtractor: (key: unknown, value: unknown, aggregate: unknown) => unknown,
  ) {
    super(storeName);
  }
  protected skip(record: Record<unknown, Change<unknown>>): boolean {
    return isAbsent(record.key);
  }
  protected aggregate(record: Record<unknown, Change<unknown>>, old: unknown): unknown {
    const { newValue, oldValue } = record.value;
    let aggregate: unknown = old;
    if (!isAbsent(oldValue) && old !== undefined) aggregate = this.subtractor(record.key, oldValue, old);
    if (isAbsent(newValue)) return aggregate;
    return this.adder(record.key, newValue, isAbsent(aggregate) ? this.initializer() : aggregate);
  }
}

/** KGroupedTable reduce: the adder and the subtractor, with no initial value. */
export class TableReduceProcessor extends AggregateProcessor<Change<unknown>> {
  constructor(
    storeName: string,
    private readonly adder: (aggregate: unknown, value: unknown) => unknown,
    private readonly subtractor: (aggregate: unknown, value: unknown) => unknown,
  ) {
    super(storeName);
  }
  protected skip(record: Record<unknown, Change<unknown>>): boolean {
    return isAbsent(record.key);
  }
  protected aggregate(record: Record<unknown, Change<unknown>>, old: unknown): unknown {
    const { newValue, oldValue } = record.value;
    let aggregate: unknown = old;
    if (!isAbsent(oldValue) && old !== undefined) aggregate = this.subtractor(old, oldValue);
    if (isAbsent(newValue)) return aggregate;
    return isAbsent(aggregate) ? newValue : this.adder(aggregate, newValue);
  }
}

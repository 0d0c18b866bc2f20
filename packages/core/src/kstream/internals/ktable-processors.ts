import type { TypedKeyValueStore } from '@kstreams/state-store';
import type { Processor, ProcessorContext } from '../../processor/processor.ts';
import { Record } from '../../processor/record.ts';
import { timestampedView, type ValueAndTimestamp } from '../../state/value-and-timestamp.ts';
import type { KeyValue } from '../key-value.ts';
import { Change } from './change.ts';
import { TimestampedTupleForwarder } from './timestamped-tuple-forwarder.ts';

type Ctx = ProcessorContext<unknown, unknown>;

function isAbsent(value: unknown): value is null | undefined {
  return value === null || value === undefined;
}

/**
 * table() and toStream().toTable(): upsert (null value: delete) into the store, forward the Change.
 * The store keeps each value with its record's timestamp (Kafka Streams' timestamped store), which
 * a table-table join needs for its result timestamp. A tombstone for a key the table does not hold
 * is still forwarded, as Change(null, null), because Kafka Streams without a record cache does so
 * (toStream() then emits the tombstone); with a cache (a table whose store the user named) it is
 * not, as in Kafka Streams: the cache forwards nothing for a key absent before and after.
 */
export class TableSourceProcessor implements Processor<unknown, unknown, unknown, unknown> {
  private store!: TypedKeyValueStore<unknown, ValueAndTimestamp<unknown>>;
  private forwarder!: TimestampedTupleForwarder;
  constructor(private readonly storeName: string) {}
  init(context: Ctx): void {
    this.store = timestampedView(context.getStateStore<TypedKeyValueStore<unknown, unknown>>(this.storeName));
    this.forwarder = new TimestampedTupleForwarder(context, this.store, this.storeName);
  }
  process(record: Record<unknown, unknown>): void {
    if (isAbsent(record.key)) return;
    const old = this.store.get(record.key)?.value ?? null;
    if (isAbsent(record.value)) {
      if (old !== null) this.store.delete(record.key);
      else if (this.forwarder.cachingEnabled) return;
      this.forwarder.maybeForward(record.withValue(new Change(null, old)));
      return;
    }
    this.store.put(record.key, { value: record.value, timestamp: record.timestamp });
    this.forwarder.maybeForward(record.withValue(new Change(record.value, old)));
  }
}

abstract class ChangeProcessor implements Processor<unknown, Change<unknown>, unknown, unknown> {
  protected ctx!: Ctx;
  init(context: Ctx): void {
    this.ctx = context;
  }
  abstract process(record: Record<unknown, Change<unknown>>): void;
}

export class TableFilterProcessor extends ChangeProcessor {
  constructor(
    private readonly predicate: (key: unknown, value: unknown) => boolean,
    private readonly negate: boolean,
    /** Set while the topology is built, if a re-grouping downstream needs the old values. */
    private readonly options: { readonly sendOldValues: boolean },
  ) {
    super();
  }
  private keep(key: unknown, value: unknown): unknown {
    return !isAbsent(value) && Boolean(this.predicate(key, value)) !== this.negate ? value : null;
  }
  process(record: Record<unknown, Change<unknown>>): void {
    const newValue = this.keep(record.key, record.value.newValue);
    const oldValue = this.keep(record.key, record.value.oldValue);
    // Neither side passes: a re-grouping has nothing to subtract or add. Everything else gets the
    // deletion, as from Kafka Streams, which without old values cannot know it is redundant.
    if (newValue === null && oldValue === null && this.options.sendOldValues && record.value.isLatest) return;
    this.ctx.forward(record.withValue(new Change(newValue, oldValue, record.value.isLatest)));
  }
}

export class TableMapValuesProcessor extends ChangeProcessor {
  constructor(private readonly mapper: (value: unknown, key: unknown) => unknown) {
    super();
  }
  process(record: Record<unknown, Change<unknown>>): void {
    const { newValue, oldValue } = record.value;
    this.ctx.forward(
      record.withValue(
        new Change(
          isAbsent(newValue) ? null : this.mapper(newValue, record.key),
          isAbsent(oldValue) ? null : this.mapper(oldValue, record.key),
          record.value.isLatest,
        ),
      ),
    );
  }
}

/** toStream(): the new value; a deletion becomes a tombstone (null value). */
export class TableToStreamProcessor extends ChangeProcessor {
  process(record: Record<unknown, Change<unknown>>): void {
    this.ctx.forward(record.withValue(record.value.newValue));
  }
}

function sameKey(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  return Buffer.isBuffer(a) && Buffer.isBuffer(b) && a.equals(b);
}

/**
 * KTable.groupBy: maps the old and the new value to their group. When the group stays the same,
 * one record carries both (so the aggregate updates once); when it moves, the subtraction goes to
 * the old group first, then the addition to the new one.
 */
export class TableRepartitionMapProcessor extends ChangeProcessor {
  constructor(private readonly selector: (key: unknown, value: unknown) => KeyValue<unknown, unknown>) {
    super();
  }
  process(record: Record<unknown, Change<unknown>>): void {
    // An out-of-order update of a versioned table: the aggregate counts latest versions only.
    if (!record.value.isLatest) return;
    const { newValue, oldValue } = record.value;
    const next = isAbsent(newValue) ? undefined : this.selector(record.key, newValue);
    const prev = isAbsent(oldValue) ? undefined : this.selector(record.key, oldValue);
    const base = { timestamp: record.timestamp, headers: record.headers };
    if (next !== undefined && prev !== undefined && sameKey(next.key, prev.key)) {
      if (isAbsent(next.key)) return;
      this.ctx.forward(
        new Record(next.key, new Change(next.value, prev.value), base.timestamp, base.headers),
      );
      return;
    }
    if (prev !== undefined && !isAbsent(prev.key)) {
      this.ctx.forward(new Record(prev.key, new Change(null, prev.value), base.timestamp, base.headers));
    }
    if (next !== undefined && !isAbsent(next.key)) {
      this.ctx.forward(new Record(next.key, new Change(next.value, null), base.timestamp, base.headers));
    }
  }
}

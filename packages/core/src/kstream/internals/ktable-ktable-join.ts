// The processors of KTable-KTable joins, with Kafka Streams' semantics (KTableKTableInnerJoin,
// LeftJoin, RightJoin, OuterJoin and the JoinMerger): one processor per side reacts to that
// side's changes and looks the key up in the other side; both feed the merge node, which is the
// result table. Result timestamp: the larger of the change's and the other side's row's.
import type { TypedKeyValueStore } from '@kstreams/state-store';
import type { Processor, ProcessorContext } from '../../processor/processor.ts';
import type { Record } from '../../processor/record.ts';
import { NO_TIMESTAMP, timestampedView, type ValueAndTimestamp } from '../../state/value-and-timestamp.ts';
import { Change } from './change.ts';
import { droppedRecord } from './dropped-records.ts';
import type { KTableValueGetter, KTableValueGetterSupplier } from './ktable-value-getter.ts';
import type { ValueJoinerWithKey } from './value-joiner.ts';

type Ctx = ProcessorContext<unknown, unknown>;
type Joiner = ValueJoinerWithKey<unknown, unknown, unknown, unknown>;

/** Set while the topology is built, when a downstream operation needs the result's old values. */
export interface SendOldValues {
  readonly sendOldValues: boolean;
}

/**
 * Which side's processor: `inner`, `left` (this side of a left join), `right` (the other side of a
 * left join: the left side's row must exist) and `outer` (either side of an outer join).
 */
export type JoinSide = 'inner' | 'left' | 'right' | 'outer';

function isAbsent(value: unknown): value is null | undefined {
  return value === null || value === undefined;
}

/**
 * One side of a table-table join. `joiner` takes this side's value first (the other side's
 * processor gets the reversed joiner, as in Kafka Streams).
 */
export class KTableKTableJoinProcessor implements Processor<unknown, Change<unknown>, unknown, unknown> {
  private ctx!: Ctx;
  private other!: KTableValueGetter;

  constructor(
    private readonly side: JoinSide,
    private readonly otherGetter: KTableValueGetterSupplier,
    private readonly joiner: Joiner,
    private readonly options: SendOldValues,
  ) {}

  init(context: Ctx): void {
    this.ctx = context;
    this.other = this.otherGetter.get(context);
  }

  process(record: Record<unknown, Change<unknown>>): void {
    if (isAbsent(record.key)) {
      droppedRecord(this.ctx, 'null key');
      return;
    }
    // Kafka Streams' versioned semantics: an out-of-order update of a versioned table changes no
    // join result (its table's latest row is unchanged).
    if (!record.value.isLatest) return;
    const { key } = record;
    const newIn = record.value.newValue ?? null;
    const oldIn = record.value.oldValue ?? null;
    const found = this.other(key);
    const otherValue = found?.value ?? null;
    const sendOld = this.options.sendOldValues;
    let newValue: unknown = null;
    let oldValue: unknown = null;
    switch (this.side) {
      case 'inner':
        if (found === undefined) return;
        if (newIn !== null) newValue = this.joiner(key, newIn, otherValue);
        if (sendOld && oldIn !== null) oldValue = this.joiner(key, oldIn, otherValue);
        break;
      case 'left':
        // A change with neither value (a tombstone for an absent row) has nothing to retract.
        if (found === undefined && newIn === null && oldIn === null) return;
        if (newIn !== null) newValue = this.joiner(key, newIn, otherValue);
        if (sendOld && oldIn !== null) oldValue = this.joiner(key, oldIn, otherValue);
        break;
      case 'right':
        // The left side's row decides; a deleted right row leaves (left, null).
        if (found === undefined) return;
        newValue = this.joiner(key, newIn, otherValue);
        if (sendOld) oldValue = this.joiner(key, oldIn, otherValue);
        break;
      case 'outer':
        if (found === undefined && newIn === null && oldIn === null) return;
        if (found !== undefined || newIn !== null) newValue = this.joiner(key, newIn, otherValue);
        if (sendOld && (found !== undefined || oldIn !== null))
          oldValue = this.joiner(key, oldIn, otherValue);
        break;
    }
    const timestamp = Math.max(record.timestamp, found?.timestamp ?? NO_TIMESTAMP);
    this.ctx.forward(
      record.withValue(new Change(newValue ?? null, oldValue ?? null)).withTimestamp(timestamp),
    );
  }
}

/**
 * Kafka Streams' KTableKTableJoinMerger: the result table. Materialized, it keeps each result with
 * its timestamp (a deletion removes the row); old values go on only when asked for.
 */
export class KTableKTableJoinMergeProcessor implements Processor<unknown, Change<unknown>, unknown, unknown> {
  private ctx!: Ctx;
  private store: TypedKeyValueStore<unknown, ValueAndTimestamp<unknown>> | undefined;

  constructor(
    private readonly storeName: string | undefined,
    private readonly options: SendOldValues,
  ) {}

  init(context: Ctx): void {
    this.ctx = context;
    if (this.storeName !== undefined) {
      this.store = timestampedView(
        context.getStateStore<TypedKeyValueStore<unknown, unknown>>(this.storeName),
      );
    }
  }

  process(record: Record<unknown, Change<unknown>>): void {
    const { newValue, oldValue } = record.value;
    if (this.store !== undefined) {
      if (isAbsent(newValue)) this.store.delete(record.key);
      else this.store.put(record.key, { value: newValue, timestamp: record.timestamp });
    }
    this.ctx.forward(record.withValue(new Change(newValue, this.options.sendOldValues ? oldValue : null)));
  }
}

/**
 * The value of an unmaterialized join result, computed from both sides' getters (Kafka Streams'
 * join value getters), for a join or lookup downstream of it.
 */
export function joinValueGetter(
  kind: 'inner' | 'left' | 'outer',
  left: KTableValueGetterSupplier,
  right: KTableValueGetterSupplier,
  joiner: Joiner,
): KTableValueGetterSupplier {
  return {
    storeNames: [...new Set([...left.storeNames, ...right.storeNames])],
    get(context) {
      const getLeft = left.get(context);
      const getRight = right.get(context);
      return (key) => {
        const l = getLeft(key);
        if (l === undefined && kind !== 'outer') return undefined;
        const r = getRight(key);
        if (r === undefined && (kind === 'inner' || l === undefined)) return undefined;
        const value = joiner(key, l?.value ?? null, r?.value ?? null);
        if (isAbsent(value)) return undefined;
        return { value, timestamp: Math.max(l?.timestamp ?? NO_TIMESTAMP, r?.timestamp ?? NO_TIMESTAMP) };
      };
    },
  };
}

// Kafka Streams' KTableValueGetterSupplier: how a join reads a table's current value for a key.
// A materialized table reads its store; filter and mapValues compute their value from their
// parent's on the fly, as in Kafka Streams, so that joining them needs no extra store (and no serde
// for the mapped values).
import type { TypedKeyValueStore } from '@kstreams/state-store';
import type { ProcessorContext } from '../../processor/processor.ts';
import { timestampedView, type ValueAndTimestamp } from '../../state/value-and-timestamp.ts';

type Ctx = ProcessorContext<unknown, unknown>;

/** The table's value for a key and the timestamp of the record it comes from; undefined: none. */
export type KTableValueGetter = (key: unknown) => ValueAndTimestamp<unknown> | undefined;

export interface KTableValueGetterSupplier {
  /** The stores the getter reads: the processor using it must be connected to them. */
  readonly storeNames: readonly string[];
  /** Called in the processor's init(), once its context can give the stores. */
  get(context: Ctx): KTableValueGetter;
  /**
   * A versioned table's (Kafka Streams' isVersioned getter): the row valid at a timestamp, which a
   * stream-table join asks for at each stream record's timestamp. Undefined: not versioned.
   */
  getAsOf?(context: Ctx): KTableVersionedGetter;
}

/** The table's row valid at `asOf` (a versioned table); undefined: none. */
export type KTableVersionedGetter = (key: unknown, asOf: number) => ValueAndTimestamp<unknown> | undefined;

function isAbsent(value: unknown): value is null | undefined {
  return value === null || value === undefined;
}

/** A timestamped key-value store's rows (source tables, aggregations, materialized joins). */
export function storeValueGetter(storeName: string): KTableValueGetterSupplier {
  return {
    storeNames: [storeName],
    get(context) {
      const store = timestampedView(context.getStateStore<TypedKeyValueStore<unknown, unknown>>(storeName));
      return (key) => {
        const found = store.get(key);
        return found === undefined || isAbsent(found.value) ? undefined : found;
      };
    },
  };
}

/** KTable.filter/filterNot: the parent's row if it passes. */
export function filterValueGetter(
  parent: KTableValueGetterSupplier,
  predicate: (key: unknown, value: unknown) => boolean,
  negate: boolean,
): KTableValueGetterSupplier {
  const keep = (key: unknown, found: ValueAndTimestamp<unknown> | undefined) =>
    found !== undefined && Boolean(predicate(key, found.value)) !== negate ? found : undefined;
  const getAsOf = parent.getAsOf;
  return {
    storeNames: parent.storeNames,
    get(context) {
      const get = parent.get(context);
      return (key) => keep(key, get(key));
    },
    ...(getAsOf === undefined
      ? {}
      : {
          getAsOf(context: Ctx): KTableVersionedGetter {
            const get = getAsOf.call(parent, context);
            return (key, asOf) => keep(key, get(key, asOf));
          },
        }),
  };
}

/** KTable.mapValues: the parent's row mapped, with the parent's timestamp. */
export function mapValuesValueGetter(
  parent: KTableValueGetterSupplier,
  mapper: (value: unknown, key: unknown) => unknown,
): KTableValueGetterSupplier {
  const map = (key: unknown, found: ValueAndTimestamp<unknown> | undefined) => {
    if (found === undefined) return undefined;
    const value = mapper(found.value, key);
    return isAbsent(value) ? undefined : { value, timestamp: found.timestamp };
  };
  const getAsOf = parent.getAsOf;
  return {
    storeNames: parent.storeNames,
    get(context) {
      const get = parent.get(context);
      return (key) => map(key, get(key));
    },
    ...(getAsOf === undefined
      ? {}
      : {
          getAsOf(context: Ctx): KTableVersionedGetter {
            const get = getAsOf.call(parent, context);
            return (key, asOf) => map(key, get(key, asOf));
          },
        }),
  };
}

// IQv2's query types (Kafka Streams' org.apache.kafka.streams.query): each says what it asks and,
// for the compiler, what its result is (`R`). Times are epoch milliseconds where Java takes Instants.
import type { VersionedRecord } from '@kstreams/state-store';
import type { ValueAndTimestamp } from '../state/value-and-timestamp.ts';
import type { WindowStoreEntry } from '../state/window-store.ts';
import type { Windowed } from '../windowed.ts';

/** Kafka Streams' ResultOrder (KIP-969, KIP-968). */
export type ResultOrder = 'ANY' | 'ASCENDING' | 'DESCENDING';

/** A query whose partition results are of type R (Kafka Streams' Query<R>). */
export interface Query<R> {
  /** Which query it is: how the store decides whether it can answer (else UNKNOWN_QUERY_TYPE). */
  readonly type: string;
  /** Carries the result type for the compiler only. */
  readonly resultType?: R;
}

/** Kafka Streams' KeyQuery: a key's value (plain, also of a timestamped store); undefined: none. */
export class KeyQuery<K, V> implements Query<V | undefined> {
  readonly type = 'KeyQuery';
  declare readonly resultType?: V | undefined;
  private constructor(
    readonly key: K,
    readonly skipCache: boolean,
  ) {}
  static withKey<K, V>(key: K): KeyQuery<K, V> {
    return new KeyQuery(key, false);
  }
  /** Kept for Kafka Streams' API: interactive queries read committed data, never the record cache. */
  skipCacheQuery(): KeyQuery<K, V> {
    return new KeyQuery(this.key, true);
  }
}

/** Kafka Streams' TimestampedKeyQuery (KIP-992): a key's value and timestamp, of a timestamped store. */
export class TimestampedKeyQuery<K, V> implements Query<ValueAndTimestamp<V> | undefined> {
  readonly type = 'TimestampedKeyQuery';
  declare readonly resultType?: ValueAndTimestamp<V> | undefined;
  private constructor(readonly key: K) {}
  static withKey<K, V>(key: K): TimestampedKeyQuery<K, V> {
    return new TimestampedKeyQuery(key);
  }
}

abstract class KeyRange<K> {
  constructor(
    readonly lowerBound: K | undefined,
    readonly upperBound: K | undefined,
    readonly resultOrder: ResultOrder,
  ) {}
}

/** Kafka Streams' RangeQuery: the entries with keys in [lower, upper] (either open), by key bytes. */
export class RangeQuery<K, V>
  extends KeyRange<K>
  implements Query<AsyncIterableIterator<{ key: K; value: V }>>
{
  readonly type = 'RangeQuery';
  declare readonly resultType?: AsyncIterableIterator<{ key: K; value: V }>;
  static withRange<K, V>(lower: K | undefined, upper: K | undefined): RangeQuery<K, V> {
    return new RangeQuery(lower, upper, 'ANY');
  }
  static withLowerBound<K, V>(lower: K): RangeQuery<K, V> {
    return new RangeQuery(lower, undefined, 'ANY');
  }
  static withUpperBound<K, V>(upper: K): RangeQuery<K, V> {
    return new RangeQuery(undefined, upper, 'ANY');
  }
  static withNoBounds<K, V>(): RangeQuery<K, V> {
    return new RangeQuery<K, V>(undefined, undefined, 'ANY');
  }
  withDescendingKeys(): RangeQuery<K, V> {
    return new RangeQuery(this.lowerBound, this.upperBound, 'DESCENDING');
  }
  withAscendingKeys(): RangeQuery<K, V> {
    return new RangeQuery(this.lowerBound, this.upperBound, 'ASCENDING');
  }
}

/** Kafka Streams' TimestampedRangeQuery (KIP-992): RangeQuery with each value's timestamp. */
export class TimestampedRangeQuery<K, V>
  extends KeyRange<K>
  implements Query<AsyncIterableIterator<{ key: K; value: ValueAndTimestamp<V> }>>
{
  readonly type = 'TimestampedRangeQuery';
  declare readonly resultType?: AsyncIterableIterator<{ key: K; value: ValueAndTimestamp<V> }>;
  static withRange<K, V>(lower: K | undefined, upper: K | undefined): TimestampedRangeQuery<K, V> {
    return new TimestampedRangeQuery(lower, upper, 'ANY');
  }
  static withNoBounds<K, V>(): TimestampedRangeQuery<K, V> {
    return new TimestampedRangeQuery<K, V>(undefined, undefined, 'ANY');
  }
  withDescendingKeys(): TimestampedRangeQuery<K, V> {
    return new TimestampedRangeQuery(this.lowerBound, this.upperBound, 'DESCENDING');
  }
  withAscendingKeys(): TimestampedRangeQuery<K, V> {
    return new TimestampedRangeQuery(this.lowerBound, this.upperBound, 'ASCENDING');
  }
}

/** Kafka Streams' WindowKeyQuery: a key's windows that start in [timeFrom, timeTo], oldest first. */
export class WindowKeyQuery<K, V> implements Query<AsyncIterableIterator<WindowStoreEntry<V>>> {
  readonly type = 'WindowKeyQuery';
  declare readonly resultType?: AsyncIterableIterator<WindowStoreEntry<V>>;
  private constructor(
    readonly key: K,
    readonly timeFrom: number,
    readonly timeTo: number,
  ) {}
  static withKeyAndWindowStartRange<K, V>(key: K, timeFrom: number, timeTo: number): WindowKeyQuery<K, V> {
    return new WindowKeyQuery(key, timeFrom, timeTo);
  }
}

/**
 * Kafka Streams' WindowRangeQuery: every key's windows that start in [timeFrom, timeTo] (window
 * stores), or every session of one key (session stores, `withKey`).
 */
export class WindowRangeQuery<K, V> implements Query<AsyncIterableIterator<{ key: Windowed<K>; value: V }>> {
  readonly type = 'WindowRangeQuery';
  declare readonly resultType?: AsyncIterableIterator<{ key: Windowed<K>; value: V }>;
  private constructor(
    readonly key: K | undefined,
    readonly timeFrom: number | undefined,
    readonly timeTo: number | undefined,
  ) {}
  static withKey<K, V>(key: K): WindowRangeQuery<K, V> {
    return new WindowRangeQuery(key, undefined, undefined);
  }
  static withWindowStartRange<K, V>(timeFrom: number, timeTo: number): WindowRangeQuery<K, V> {
    return new WindowRangeQuery<K, V>(undefined, timeFrom, timeTo);
  }
}

/** Kafka Streams' VersionedKeyQuery (KIP-960): a key's latest version, or the one valid at `asOf`. */
export class VersionedKeyQuery<K, V> implements Query<VersionedRecord<V> | undefined> {
  readonly type = 'VersionedKeyQuery';
  declare readonly resultType?: VersionedRecord<V> | undefined;
  private constructor(
    readonly key: K,
    readonly asOfTimestamp: number | undefined,
  ) {}
  static withKey<K, V>(key: K): VersionedKeyQuery<K, V> {
    return new VersionedKeyQuery(key, undefined);
  }
  asOf(asOfTimestamp: number): VersionedKeyQuery<K, V> {
    return new VersionedKeyQuery(this.key, asOfTimestamp);
  }
}

/**
 * Kafka Streams' MultiVersionedKeyQuery (KIP-968): the versions of a key valid at some time in
 * [fromTime, toTime] (within the history retention), tombstones left out; newest first unless
 * `withAscendingTimestamps()`.
 */
export class MultiVersionedKeyQuery<K, V> implements Query<AsyncIterableIterator<VersionedRecord<V>>> {
  readonly type = 'MultiVersionedKeyQuery';
  declare readonly resultType?: AsyncIterableIterator<VersionedRecord<V>>;
  private constructor(
    readonly key: K,
    readonly fromTimestamp: number | undefined,
    readonly toTimestamp: number | undefined,
    readonly resultOrder: ResultOrder,
  ) {}
  static withKey<K, V>(key: K): MultiVersionedKeyQuery<K, V> {
    return new MultiVersionedKeyQuery(key, undefined, undefined, 'ANY');
  }
  fromTime(fromTime: number): MultiVersionedKeyQuery<K, V> {
    return new MultiVersionedKeyQuery(this.key, fromTime, this.toTimestamp, this.resultOrder);
  }
  toTime(toTime: number): MultiVersionedKeyQuery<K, V> {
    return new MultiVersionedKeyQuery(this.key, this.fromTimestamp, toTime, this.resultOrder);
  }
  withAscendingTimestamps(): MultiVersionedKeyQuery<K, V> {
    return new MultiVersionedKeyQuery(this.key, this.fromTimestamp, this.toTimestamp, 'ASCENDING');
  }
  withDescendingTimestamps(): MultiVersionedKeyQuery<K, V> {
    return new MultiVersionedKeyQuery(this.key, this.fromTimestamp, this.toTimestamp, 'DESCENDING');
  }
}

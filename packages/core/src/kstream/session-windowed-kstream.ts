import { TopologyError } from '../errors.ts';
import type { Serde } from '../serdes/serde.ts';
import { Serdes } from '../serdes/serdes.ts';
import { SessionWindowedSerde } from '../serdes/windowed-serdes.ts';
import { dslSessionStoreBuilder } from '../state/session-store-builder.ts';
import type { Windowed } from '../windowed.ts';
import { addAggregation } from './internals/aggregation.ts';
import type { InternalStreamsBuilder } from './internals/internal-streams-builder.ts';
import { SessionWindowAggregateProcessor } from './internals/session-window-aggregate-processor.ts';
import { sessionStoreRetention } from './internals/windowed-retention.ts';
import type { KTable } from './ktable.ts';
import type { Materialized } from './options.ts';
import type { SessionWindows } from './session-windows.ts';

type Aggregator = (key: unknown, value: unknown, aggregate: unknown) => unknown;
type Merger = (key: unknown, aggregate1: unknown, aggregate2: unknown) => unknown;

/**
 * A grouped stream cut into sessions (Kafka Streams' SessionWindowedKStream). Each aggregation
 * gives a table keyed by `Windowed<K>` (window = the session, both ends inclusive) whose key serde
 * writes Java's session-windowed layout. When a record merges sessions, each old session is sent
 * as a tombstone and the merged one with its aggregate. Records with a null key are skipped (a
 * null value reaches the aggregator, as in Kafka Streams); records for a closed session are late.
 */
export class SessionWindowedKStream<K, V> {
  /** @internal */
  constructor(
    private readonly builder: InternalStreamsBuilder,
    private readonly windows: SessionWindows,
    private readonly keySerde: Serde<K> | undefined,
    private readonly valueSerde: Serde<V> | undefined,
    private readonly parent: (storeName: string) => string,
  ) {}

  /** The number of records per key and session. */
  count(materialized: Materialized<K, number> = {}): KTable<Windowed<K>, number> {
    return this.build(
      'KSTREAM-AGGREGATE-',
      materialized,
      Serdes.Long(),
      () => 0,
      (_k, _v, count) => (count as number) + 1,
      (_k, a, b) => (a as number) + (b as number),
    );
  }

  /** Combines the values of a key in a session; merged sessions are reduced together. */
  reduce(
    reducer: (aggregate: V, value: V) => V,
    materialized: Materialized<K, V> = {},
  ): KTable<Windowed<K>, V> {
    // As Kafka Streams: the aggregate starts as null, and merging reduces the other session into it.
    const aggregator: Aggregator = (_k, v, agg) => (agg === null ? v : reducer(agg as V, v as V));
    return this.build(
      'KSTREAM-REDUCE-',
      materialized,
      this.valueSerde,
      () => null,
      aggregator,
      (k, a, b) => aggregator(k, b, a),
    );
  }

  /** `merger(key, aggregate1, aggregate2)` combines two sessions' aggregates when a record joins them. */
  aggregate<VA>(
    initializer: () => VA,
    aggregator: (key: K, value: V, aggregate: VA) => VA,
    merger: (key: K, aggregate1: VA, aggregate2: VA) => VA,
    materialized: Materialized<K, VA> = {},
  ): KTable<Windowed<K>, VA> {
    if (typeof merger !== 'function') {
      throw new TopologyError(
        'SessionWindowedKStream.aggregate(initializer, aggregator, merger, materialized?) needs a merger function',
      );
    }
    return this.build(
      'KSTREAM-AGGREGATE-',
      materialized,
      undefined,
      initializer,
      aggregator as Aggregator,
      merger as Merger,
    );
  }

  private build<VA>(
    prefix: string,
    materialized: Materialized<K, VA>,
    defaultValueSerde: Serde<VA> | undefined,
    initializer: () => unknown,
    aggregator: Aggregator,
    merger: Merger,
  ): KTable<Windowed<K>, VA> {
    const { windows } = this;
    const retentionMs = sessionStoreRetention(windows, materialized.retentionMs);
    return addAggregation<K, VA, Windowed<K>>(this.builder, {
      prefix,
      materialized,
      keySerde: this.keySerde,
      defaultValueSerde,
      parent: this.parent,
      supplier: (storeName) => () =>
        new SessionWindowAggregateProcessor(storeName, windows, initializer, aggregator, merger),
      store: (storeName, keySerde, valueSerde) =>
        dslSessionStoreBuilder(storeName, { retentionMs }, keySerde, valueSerde),
      tableKeySerde: (keySerde) => new SessionWindowedSerde(keySerde),
    });
  }
}

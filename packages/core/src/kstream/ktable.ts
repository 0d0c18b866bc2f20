import { TopologyError } from '../errors.ts';
import type { Serde } from '../serdes/serde.ts';
import { suppressionBufferBuilder } from '../state/suppression-buffer-builder.ts';
import { foreignKeyJoin } from './internals/fk-join-builder.ts';
import type { InternalStreamsBuilder } from './internals/internal-streams-builder.ts';
import { tableTableJoin } from './internals/ktable-ktable-join-builder.ts';
import { materializedValueGetter } from './internals/ktable-materialize.ts';
import {
  TableFilterProcessor,
  TableMapValuesProcessor,
  TableRepartitionMapProcessor,
  TableToStreamProcessor,
} from './internals/ktable-processors.ts';
import {
  filterValueGetter,
  type KTableValueGetterSupplier,
  mapValuesValueGetter,
} from './internals/ktable-value-getter.ts';
import { KTableSuppressProcessor } from './internals/suppress-processor.ts';
import type { ValueJoiner, ValueJoinerWithKey } from './internals/value-joiner.ts';
import type { KeyValue } from './key-value.ts';
import { KGroupedTable } from './kgrouped-table.ts';
import { KStream } from './kstream.ts';
import type { Grouped, Materialized, Named } from './options.ts';
import type { Suppressed } from './suppressed.ts';

/**
 * A changelog stream: the latest value per key. Every update is forwarded downstream (no
 * caching), carrying the value it replaced so that a re-grouping can subtract it.
 */
const SUPPRESS_NAME = 'KTABLE-SUPPRESS-';

// biome-ignore lint/suspicious/noExplicitAny: the implementation signature behind the typed overloads
type AnyJoiner = ValueJoinerWithKey<any, any, any, any>;

/**
 * The arguments after `other`: a table-table join has a joiner and maybe a Materialized (an
 * object); anything else third (the joiner, a function), or a fourth, is the foreign-key form.
 */
function isForeignKeyJoin(args: readonly unknown[]): boolean {
  return args.length > 2 || (args[1] !== undefined && typeof args[1] !== 'object');
}

export class KTable<K, V> {
  /** @internal */
  constructor(
    /** @internal */ readonly builder: InternalStreamsBuilder,
    /** @internal */ readonly nodeName: string,
    /** @internal */ readonly keySerde: Serde<K> | undefined,
    /** @internal */ readonly valueSerde: Serde<V> | undefined,
    /** The store holding this table, if it is materialized (source tables and aggregations). */
    readonly queryableStoreName: string | undefined,
    /**
     * @internal Called when an operation downstream needs the old values (Kafka Streams'
     * enableSendingOldValues): goes up through the stateless table operations.
     */
    readonly enableSendingOldValues: () => void = () => {},
    /**
     * @internal The grace period of the windows upstream, for a windowed table (a window closes at
     * its end plus this); undefined for a table that is not windowed.
     */
    readonly windowGraceMs?: number,
    /**
     * @internal How a join reads this table (Kafka Streams' value getter), computed when a join
     * first asks; undefined: the table's store, or one added for it (ktable-materialize.ts).
     */
    private readonly valueGetterFactory?: () => KTableValueGetterSupplier,
  ) {}

  private valueGetter: KTableValueGetterSupplier | undefined;

  /** @internal What a join reads this table's rows through; the same for every join. */
  valueGetterSupplier(): KTableValueGetterSupplier {
    this.valueGetter ??=
      this.valueGetterFactory?.() ?? materializedValueGetter(this as KTable<unknown, unknown>);
    return this.valueGetter;
  }

  private next<VR>(
    prefix: string,
    named: Named | undefined,
    processor: () => unknown,
    valueSerde: Serde<VR> | undefined,
    enableSendingOldValues: () => void,
    valueGetter: (parent: KTableValueGetterSupplier) => KTableValueGetterSupplier,
  ) {
    const name = this.builder.nameOr(named?.name, prefix);
    this.builder.addProcessor(name, processor as () => TableFilterProcessor, [this.nodeName]);
    return new KTable<K, VR>(
      this.builder,
      name,
      this.keySerde,
      valueSerde,
      undefined,
      enableSendingOldValues,
      this.windowGraceMs,
      () => valueGetter(this.valueGetterSupplier()),
    );
  }

  private nextFilter(predicate: (key: K, value: V) => boolean, negate: boolean, named?: Named) {
    const options = { sendOldValues: false };
    return this.next(
      'KTABLE-FILTER-',
      named,
      () => new TableFilterProcessor(predicate as (k: unknown, v: unknown) => boolean, negate, options),
      this.valueSerde,
      () => {
        options.sendOldValues = true;
        this.enableSendingOldValues();
      },
      (parent) => filterValueGetter(parent, predicate as (k: unknown, v: unknown) => boolean, negate),
    );
  }

  /**
   * Keeps rows matching the predicate; a row that stops matching is deleted downstream. As in
   * Kafka Streams, a row that does not match is forwarded as a deletion even if it never matched,
   * unless a re-grouping downstream needs the old values (then only real deletions are forwarded).
   */
  filter(predicate: (key: K, value: V) => boolean, named?: Named): KTable<K, V> {
    return this.nextFilter(predicate, false, named);
  }

  filterNot(predicate: (key: K, value: V) => boolean, named?: Named): KTable<K, V> {
    return this.nextFilter(predicate, true, named);
  }

  mapValues<VR>(mapper: (value: V, key: K) => VR, named?: Named): KTable<K, VR> {
    return this.next<VR>(
      'KTABLE-MAPVALUES-',
      named,
      () => new TableMapValuesProcessor(mapper as (v: unknown, k: unknown) => unknown),
      undefined,
      this.enableSendingOldValues,
      (parent) => mapValuesValueGetter(parent, mapper as (v: unknown, k: unknown) => unknown),
    );
  }

  /**
   * Holds updates back (Kafka Streams' KTable.suppress): `Suppressed.untilWindowCloses` gives one
   * final result per window once it closes (windowed tables only); `Suppressed.untilTimeLimit` at
   * most one update per key per time limit. The buffer is a store with its own changelog topic.
   * Named as in Kafka Streams: the processor `<name>` (default KTABLE-SUPPRESS-n), its store
   * `<name>-store` (default KTABLE-SUPPRESS-STATE-STORE-n), so the changelog topic is theirs too.
   */
  suppress(suppressed: Suppressed<K>): KTable<K, V> {
    const { builder } = this;
    const name = suppressed.name ?? builder.newProcessorName(SUPPRESS_NAME);
    const storeName =
      suppressed.name === undefined ? builder.newStoreName(SUPPRESS_NAME) : `${suppressed.name}-store`;
    let suppressDurationMs = suppressed.timeToWaitForMoreEventsMs;
    if (suppressDurationMs === undefined) {
      if (this.windowGraceMs === undefined) {
        throw new TopologyError(
          `Suppressed.untilWindowCloses is only defined for windowed tables (the result of ` +
            `windowedBy(...).count/reduce/aggregate), and the table of '${this.nodeName}' is not windowed. ` +
            'Use Suppressed.untilTimeLimit(ms, bufferConfig) to rate-limit a table that is not windowed.',
        );
      }
      suppressDurationMs = this.windowGraceMs;
    }
    // The buffer keeps the value downstream last saw, which needs the old values.
    this.enableSendingOldValues();
    const { bufferConfig } = suppressed;
    builder.addProcessor(
      name,
      () =>
        new KTableSuppressProcessor({
          nodeName: name,
          storeName,
          maxRecords: bufferConfig.maxRecords,
          maxBytes: bufferConfig.maxBytes,
          suppressDurationMs,
          timeDefinition: suppressed.timeDefinition,
          bufferFullStrategy: bufferConfig.bufferFullStrategy,
          safeToDropTombstones: suppressed.safeToDropTombstones,
        }),
      [this.nodeName],
    );
    builder.topology.addStateStore(
      suppressionBufferBuilder(storeName, this.keySerde, this.valueSerde, bufferConfig.loggingEnabled),
      [name],
    );
    return new KTable<K, V>(
      builder,
      name,
      this.keySerde,
      this.valueSerde,
      undefined,
      this.enableSendingOldValues,
      this.windowGraceMs,
    );
  }

  /**
   * Kafka Streams' foreign-key join (KIP-213): each row of this table joins the row of `other`
   * whose key `foreignKeyExtractor` picks from it (`(value) => fk`, or `(key, value) => fk`).
   * Changes of either table update the result, keyed by this table's key; a row whose foreign key
   * changes, or that loses its match, is deleted downstream. The tables need not be co-partitioned:
   * subscriptions and responses travel through the internal topics
   * `<applicationId>-KTABLE-FK-JOIN-SUBSCRIPTION-REGISTRATION-n-topic` and `...-RESPONSE-n-topic`.
   * `materialized` gives the result a store; its `name` plays Kafka Streams' TableJoined name (the
   * base of the join's node, store and topic names).
   */
  join<KO, VO, VR>(
    other: KTable<KO, VO>,
    foreignKeyExtractor: (value: V) => KO | null,
    joiner: ValueJoiner<V, VO, VR>,
    materialized?: Materialized<K, VR>,
  ): KTable<K, VR>;
  join<KO, VO, VR>(
    other: KTable<KO, VO>,
    foreignKeyExtractor: (key: K, value: V) => KO | null,
    joiner: ValueJoiner<V, VO, VR>,
    materialized?: Materialized<K, VR>,
  ): KTable<K, VR>;
  /**
   * Kafka Streams' KTable-KTable join: both sides' changes update the result, which has a row where
   * both tables have one. A row that stops joining is deleted (a tombstone downstream); the result's
   * timestamp is the larger of the two rows'. `materialized` gives the result a store (and names
   * it: the merge node `<name>`, its sides `<name>-join-this` and `<name>-join-other`). Both tables
   * must be co-partitioned. A joiner with `.length === 3` is a ValueJoinerWithKey.
   */
  join<VO, VR>(
    other: KTable<K, VO>,
    joiner: ValueJoiner<V, VO, VR>,
    materialized?: Materialized<K, VR>,
  ): KTable<K, VR>;
  join<VO, VR>(
    other: KTable<K, VO>,
    joiner: ValueJoinerWithKey<K, V, VO, VR>,
    materialized?: Materialized<K, VR>,
  ): KTable<K, VR>;
  join(other: KTable<unknown, unknown>, ...args: unknown[]): KTable<K, unknown> {
    if (isForeignKeyJoin(args)) return this.foreignKeyJoin(other, args, false);
    return tableTableJoin(
      this,
      other as KTable<K, unknown>,
      args[0] as AnyJoiner,
      'inner',
      args[1] as Materialized<K, unknown>,
    );
  }

  private foreignKeyJoin(
    other: KTable<unknown, unknown>,
    args: unknown[],
    leftJoin: boolean,
  ): KTable<K, unknown> {
    const materialized = args[2] as Materialized<unknown, unknown> | undefined;
    return foreignKeyJoin(
      this as KTable<unknown, unknown>,
      other,
      args[0],
      args[1],
      leftJoin,
      materialized,
    ) as KTable<K, unknown>;
  }

  /** The foreign-key join with a row for each row of this table: `joiner(value, null)` without a match. */
  leftJoin<KO, VO, VR>(
    other: KTable<KO, VO>,
    foreignKeyExtractor: (value: V) => KO | null,
    joiner: ValueJoiner<V, VO | null, VR>,
    materialized?: Materialized<K, VR>,
  ): KTable<K, VR>;
  leftJoin<KO, VO, VR>(
    other: KTable<KO, VO>,
    foreignKeyExtractor: (key: K, value: V) => KO | null,
    joiner: ValueJoiner<V, VO | null, VR>,
    materialized?: Materialized<K, VR>,
  ): KTable<K, VR>;
  /** As join(), with a row for each row of this table: `joiner(value, null)` while `other` has none. */
  leftJoin<VO, VR>(
    other: KTable<K, VO>,
    joiner: ValueJoiner<V, VO | null, VR>,
    materialized?: Materialized<K, VR>,
  ): KTable<K, VR>;
  leftJoin<VO, VR>(
    other: KTable<K, VO>,
    joiner: ValueJoinerWithKey<K, V, VO | null, VR>,
    materialized?: Materialized<K, VR>,
  ): KTable<K, VR>;
  leftJoin(other: KTable<unknown, unknown>, ...args: unknown[]): KTable<K, unknown> {
    if (isForeignKeyJoin(args)) return this.foreignKeyJoin(other, args, true);
    return tableTableJoin(
      this,
      other as KTable<K, unknown>,
      args[0] as AnyJoiner,
      'left',
      args[1] as Materialized<K, unknown>,
    );
  }

  /** As join(), with a row wherever either table has one; the missing side's value is null. */
  outerJoin<VO, VR>(
    other: KTable<K, VO>,
    joiner: ValueJoiner<V | null, VO | null, VR>,
    materialized?: Materialized<K, VR>,
  ): KTable<K, VR>;
  outerJoin<VO, VR>(
    other: KTable<K, VO>,
    joiner: ValueJoinerWithKey<K, V | null, VO | null, VR>,
    materialized?: Materialized<K, VR>,
  ): KTable<K, VR>;
  outerJoin<VO, VR>(
    other: KTable<K, VO>,
    joiner: AnyJoiner,
    materialized?: Materialized<K, VR>,
  ): KTable<K, VR> {
    return tableTableJoin(this, other, joiner, 'outer', materialized);
  }

  /** The stream of updates; deletions become records with a null value (tombstones). */
  toStream(named?: Named): KStream<K, V> {
    const name = this.builder.nameOr(named?.name, 'KTABLE-TOSTREAM-');
    this.builder.addProcessor(name, () => new TableToStreamProcessor(), [this.nodeName]);
    return new KStream<K, V>(this.builder, name, this.keySerde, this.valueSerde, false);
  }

  /**
   * Re-groups rows by a new key and value, for aggregations with an adder and a subtractor. The
   * groups are formed through a repartition topic that carries both the old and the new value.
   */
  groupBy<KR, VR>(
    selector: (key: K, value: V) => KeyValue<KR, VR>,
    grouped: Grouped<KR, VR> = {},
  ): KGroupedTable<KR, VR> {
    this.enableSendingOldValues();
    const name = this.builder.nameOr(
      grouped.name === undefined ? undefined : `${grouped.name}-select`,
      'KTABLE-SELECT-',
    );
    this.builder.addProcessor(
      name,
      () =>
        new TableRepartitionMapProcessor(selector as (k: unknown, v: unknown) => KeyValue<unknown, unknown>),
      [this.nodeName],
    );
    return new KGroupedTable<KR, VR>(
      this.builder,
      name,
      grouped.keySerde as Serde<KR> | undefined,
      grouped.valueSerde as Serde<VR> | undefined,
      grouped.name,
    );
  }
}

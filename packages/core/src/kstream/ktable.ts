import { TopologyError } from '../errors.ts';
import type { Serde } from '../serdes/serde.ts';
import { suppressionBufferBuilder } from '../state/suppression-buffer-builder.ts';
import type { InternalStreamsBuilder } from './internals/internal-streams-builder.ts';
import {
  TableFilterProcessor,
  TableMapValuesProcessor,
  TableRepartitionMapProcessor,
  TableToStreamProcessor,
} from './internals/ktable-processors.ts';
import { KTableSuppressProcessor } from './internals/suppress-processor.ts';
import type { KeyValue } from './key-value.ts';
import { KGroupedTable } from './kgrouped-table.ts';
import { KStream } from './kstream.ts';
import type { Grouped, Named } from './options.ts';
import type { Suppressed } from './suppressed.ts';

/**
 * A changelog stream: the latest value per key. Every update is forwarded downstream (no
 * caching), carrying the value it replaced so that a re-grouping can subtract it.
 */
const SUPPRESS_NAME = 'KTABLE-SUPPRESS-';

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
  ) {}

  private next<VR>(
    prefix: string,
    named: Named | undefined,
    processor: () => unknown,
    valueSerde: Serde<VR> | undefined,
    enableSendingOldValues: () => void,
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

import type { AutoOffsetResetLike } from '../processor/auto-offset-reset.ts';
import type { StreamPartitioner } from '../processor/stream-partitioner.ts';
import type { TimestampExtractorLike } from '../processor/timestamp-extractor.ts';
import type { Serde } from '../serdes/serde.ts';
import type { VersionedBytesStoreSupplier } from '../state/versioned-store-builder.ts';

/** A user-given name for the processor an operation adds (else KSTREAM-FILTER-0000000003 style). */
export interface Named {
  name?: string;
}

/** Serdes a source reads with (Kafka's Consumed). Missing serdes: the config defaults. */
export interface Consumed<K, V> extends Named {
  keySerde?: Serde<K>;
  valueSerde?: Serde<V>;
  /**
   * Kafka Streams' Consumed.withTimestampExtractor: the records' timestamps for this source
   * (default: the config's `defaultTimestampExtractor`, FailOnInvalidTimestamp).
   */
  timestampExtractor?: TimestampExtractorLike;
  /**
   * Kafka Streams' Consumed.withOffsetResetPolicy: where this source starts a partition the
   * application has no committed offset for (default: the config's `autoOffsetReset`, earliest).
   */
  offsetResetPolicy?: AutoOffsetResetLike;
}

/** Serdes a sink writes with (Kafka's Produced). Missing: the stream's known serdes, then the defaults. */
export interface Produced<K, V> extends Named {
  keySerde?: Serde<K>;
  valueSerde?: Serde<V>;
  /**
   * Kafka Streams' Produced.withStreamPartitioner: the partition(s) of the topic each record is
   * written to (default: murmur2 of the key bytes, as Java's producer).
   */
  streamPartitioner?: StreamPartitioner<K, V>;
}

/**
 * Serdes for the repartition topic a grouping may need; `name` names that topic
 * (`<applicationId>-<name>-repartition`).
 */
export interface Grouped<K, V> extends Named {
  keySerde?: Serde<K>;
  valueSerde?: Serde<V>;
}

/**
 * An explicit repartition topic (Kafka Streams' Repartitioned, KIP-221): `name` (withName) names it
 * `<applicationId>-<name>-repartition` and its nodes `<name>-repartition-sink`, `-filter`,
 * `-source`; `keySerde`/`valueSerde` (withKeySerde/withValueSerde) write and read it.
 */
export interface Repartitioned<K, V> extends Named {
  keySerde?: Serde<K>;
  valueSerde?: Serde<V>;
  /**
   * withNumberOfPartitions: the topic is created with this many partitions, rather than the count
   * of the sub-topology that writes it; a join's other inputs must then have the same count.
   */
  numberOfPartitions?: number;
  /** withStreamPartitioner: the partition(s) each record is written to (default: murmur2 of the key). */
  streamPartitioner?: StreamPartitioner<K, V>;
}

/**
 * The state store behind a KTable or an aggregation: its name (queryable through
 * `TopologyTestDriver.getKeyValueStore`), serdes, and whether it has a changelog topic
 * `<applicationId>-<storeName>-changelog` (default: yes).
 */
export interface Materialized<K, V> extends Named {
  storeName?: string;
  keySerde?: Serde<K>;
  valueSerde?: Serde<V>;
  loggingEnabled?: boolean;
  /** Windowed stores: how long windows are kept (Kafka Streams' withRetention); default size + grace. */
  retentionMs?: number;
  /**
   * Kafka Streams' withCachingEnabled / withCachingDisabled: the store's updates go downstream
   * through the instance's record cache (`statestoreCacheMaxBytes`), so that a key updated several
   * times between commits is forwarded once. Default true.
   */
  cachingEnabled?: boolean;
  /**
   * Kafka Streams' Materialized.as(VersionedBytesStoreSupplier): the table is kept in a versioned
   * store (KIP-889/914), so that a stream-table join reads it as of each stream record's
   * timestamp and an out-of-order update does not replace a newer value. Source tables
   * (`builder.table`) and `toTable` take one; the store is not cached, as in Kafka Streams.
   */
  storeSupplier?: VersionedBytesStoreSupplier;
}

/** Kafka Streams' Materialized.as: options naming a store, or a versioned store's supplier. */
export const Materialized = {
  as<K, V>(store: string | VersionedBytesStoreSupplier): Materialized<K, V> {
    return typeof store === 'string' ? { storeName: store } : { storeName: store.name, storeSupplier: store };
  },
} as const;

/**
 * Serdes of a stream-table join (Kafka Streams' Joined): `keySerde` and `valueSerde` for the
 * stream's records (the repartition topic, when the stream's key changed), `otherValueSerde` for
 * the table's values. `name` names the join processor and the repartition topic
 * (`<applicationId>-<name>-repartition`).
 */
export interface Joined<K, V, VO> extends Named {
  keySerde?: Serde<K>;
  valueSerde?: Serde<V>;
  otherValueSerde?: Serde<VO>;
  /**
   * Kafka Streams' Joined.withGracePeriod (KIP-923), against a versioned table only: stream records
   * wait up to this long (by stream time) in a buffer store (`<join name>-Buffer`, with a changelog)
   * and are joined in timestamp order, so table updates arriving that late are still seen. At most
   * the table's history retention.
   */
  gracePeriodMs?: number;
}

/**
 * Serdes and store names of a stream-stream join (Kafka Streams' StreamJoined): `keySerde` and
 * `valueSerde` for this side, `otherValueSerde` for the other; `storeName` is the base of the
 * window stores' names (`<storeName>-this-join-store`, `<storeName>-other-join-store`).
 */
export interface StreamJoined<K, V, VO> extends Named {
  keySerde?: Serde<K>;
  valueSerde?: Serde<V>;
  otherValueSerde?: Serde<VO>;
  storeName?: string;
  loggingEnabled?: boolean;
}

/** Kafka Streams' ValueJoiner; one definition for every join, in internals/value-joiner.ts. */
export type { ValueJoiner } from './internals/value-joiner.ts';

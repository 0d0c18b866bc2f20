import { type Topology } from '@kstreams/core';
/** The state store the counts live in; interactive queries read it by this name. */
export declare const COUNTS_STORE = "counts";
/**
 * Kafka Streams' WordCountDemo: lines in, lower-cased and split into words, grouped by word
 * (through a repartition topic `<applicationId>-counts-repartition`), counted in the store
 * `counts` (backed up to `<applicationId>-counts-changelog`), and every new count out to
 * `output` as word → 64-bit big-endian count, which Java's LongDeserializer reads.
 */
export declare function wordCountTopology(input: string, output: string): Topology;

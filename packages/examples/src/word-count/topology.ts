import { Serdes, StreamsBuilder, type Topology } from '@kstreams/core';

/** The state store the counts live in; interactive queries read it by this name. */
export const COUNTS_STORE = 'counts';

/**
 * Kafka Streams' WordCountDemo: lines in, lower-cased and split into words, grouped by word
 * (through a repartition topic `<applicationId>-counts-repartition`), counted in the store
 * `counts` (backed up to `<applicationId>-counts-changelog`), and every new count out to
 * `output` as word → 64-bit big-endian count, which Java's LongDeserializer reads.
 */
export function wordCountTopology(input: string, output: string): Topology {
  const builder = new StreamsBuilder();
  builder
    .stream(input, { keySerde: Serdes.String(), valueSerde: Serdes.String() })
    .flatMapValues((line) =>
      line
        .toLowerCase()
        .split(/\W+/)
        .filter((word) => word.length > 0),
    )
    .groupBy((_key, word) => word, { keySerde: Serdes.String(), valueSerde: Serdes.String() })
    .count({ storeName: COUNTS_STORE })
    .toStream()
    .to(output, { keySerde: Serdes.String(), valueSerde: Serdes.Long() });
  return builder.build();
}

import { Serdes, StreamsBuilder, type Topology } from '@kstreams/core';

/** The state store the counts are kept in, backed up to the topic `<applicationId>-counts-changelog`. */
export const COUNTS_STORE = 'counts';

/**
 * Kafka Streams' WordCountDemo: each line of `inputTopic` split into lower-case words, re-keyed by
 * word (through the topic `<applicationId>-counts-repartition`, so that each word is counted by one
 * task), counted, and every new count written to `outputTopic` as word -> count. The count is a
 * 64-bit big-endian long, what Java's LongDeserializer reads.
 */
export function wordCountTopology(inputTopic: string, outputTopic: string): Topology {
  const builder = new StreamsBuilder();
  builder
    .stream(inputTopic, { keySerde: Serdes.String(), valueSerde: Serdes.String() })
    .flatMapValues((line) =>
      line
        .toLowerCase()
        .split(/\W+/)
        .filter((word) => word.length > 0),
    )
    .groupBy((_key, word) => word, { keySerde: Serdes.String(), valueSerde: Serdes.String() })
    .count({ storeName: COUNTS_STORE })
    .toStream()
    .to(outputTopic, { keySerde: Serdes.String(), valueSerde: Serdes.Long() });
  return builder.build();
}

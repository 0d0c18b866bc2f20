/**
 * The example's one rule for words, as in Kafka Streams' WordCountDemo: lower-case the line,
 * split it on runs of non-word characters, and drop the empty strings a split leaves at the ends.
 */
export declare function wordsOf(line: string): string[];

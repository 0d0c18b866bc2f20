import type { Producer } from 'kafkajs';
/** The public-domain book shipped with the example (see packages/examples/data/README.md). */
export declare const BOOK_PATH: string;
/**
 * The lines of a UTF-8 text file, without line endings. Lines that are empty or only white space
 * are skipped: they hold no words, and a record for them would only be processed to no effect.
 */
export declare function readLines(path: string): AsyncGenerator<string>;
export interface FeedResult {
    records: number;
    bytes: number;
}
/**
 * Sends the lines as records with a null key (as Kafka's console producer does, so the producer
 * spreads them over the partitions) in batches of `batchSize`: kafkajs makes one request per
 * send() call, so sending line by line would be a few hundred times slower.
 */
export declare function feedLines(producer: Producer, topic: string, lines: AsyncIterable<string> | Iterable<string>, { batchSize, onBatch, beforeBatch, }?: {
    batchSize?: number;
    onBatch?: (sent: FeedResult) => void;
    /** Awaited before each batch; a caller can hold the feeder back until the app catches up. */
    beforeBatch?: (sent: FeedResult) => Promise<void>;
}): Promise<FeedResult>;

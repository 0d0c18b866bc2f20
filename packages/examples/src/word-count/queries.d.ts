import { type KafkaStreams } from '@kstreams/core';
/** What the queries need of a running app; KafkaStreams has exactly these members. */
export type QueryableStreams = Pick<KafkaStreams, 'state' | 'store' | 'queryMetadataForKey'>;
/** An HTTP answer: status, JSON body, extra headers. */
export interface Reply {
    status: number;
    body: unknown;
    headers?: Record<string, string>;
}
/** GETs `path` from another instance (`host:port`) and returns its status and parsed JSON body. */
export type PeerClient = (host: string, path: string) => Promise<Reply>;
export interface WordCount {
    word: string;
    count: number;
}
export declare const MAX_TOP = 1000;
export declare const fetchPeer: PeerClient;
/** The n entries with the highest counts, ties broken by word, in one pass with O(n) memory. */
export declare function topN(entries: AsyncIterable<WordCount> | Iterable<WordCount>, n: number): Promise<WordCount[]>;
export interface WordCountQueriesOptions {
    /** This instance's `host:port` (its applicationServer). */
    self: string;
    /** Partitions of the store's source topics (the input's partition count). */
    partitions: number;
    peer?: PeerClient;
}
export declare class WordCountQueries {
    readonly app: QueryableStreams;
    private readonly options;
    private readonly peer;
    private probeKeys?;
    constructor(app: QueryableStreams, options: WordCountQueriesOptions);
    /**
     * The count of a word whose partition this instance owns (the route asks @kstreams/http's
     * ownedHere first, which forwards the request to the owner otherwise).
     */
    localCount(word: string, partition: number): Reply;
    /** The n most frequent words of this instance's tasks only. */
    localTop(n: number): Promise<Reply>;
    /**
     * The n most frequent words across all instances: every word lives in exactly one partition,
     * so the global top n is the top n of the union of each instance's local top n.
     */
    top(n: number): Promise<Reply>;
    private localCounts;
    /** Which instance runs each partition, learnt by asking for the owner of one key per partition. */
    private owners;
    private ask;
}
/** For each partition p, a key that the default partitioner puts in p. */
export declare function probeKeys(partitions: number): string[];

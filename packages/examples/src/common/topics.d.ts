import type { Admin } from 'kafkajs';
/**
 * Creates the topics that do not exist yet, with `numPartitions` each, and returns their names.
 * Brokers usually run with auto.create.topics.enable=false, and kstreams creates only its
 * internal topics, so the app creates its own input and output topics. Two instances starting at
 * once may both try: a topic that already exists is not an error.
 */
export declare function ensureTopics(admin: Admin, topics: readonly string[], numPartitions: number): Promise<string[]>;
/** Partition count of each topic, from the cluster's metadata. */
export declare function partitionCounts(admin: Admin, topics: readonly string[]): Promise<Map<string, number>>;
/**
 * Waits until every partition of the topics has a leader. kafkajs' own `waitForLeaders` gives up
 * on the UNKNOWN_TOPIC_OR_PARTITION a KRaft broker answers while the new topic's metadata spreads.
 */
export declare function waitForLeaders(admin: Admin, topics: readonly string[], timeoutMs?: number): Promise<void>;

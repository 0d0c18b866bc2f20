import { type Admin, Kafka } from 'kafkajs';
export declare function testBrokers(): string[];
export declare function testKafka(clientId?: string): Kafka;
/** A topic (or application id) name that no other test, run or machine will pick. */
export declare function uniqueName(prefix: string): string;
/**
 * Creates topics for the calling test file and deletes them (and any topics whose name starts
 * with one of `alsoDeletePrefixes`, such as an application's internal topics) after the file.
 */
export declare function topicsForThisFile(): {
    admin: () => Promise<Admin>;
    create(prefix: string, numPartitions?: number): Promise<string>;
    /** Deletes, after the file, every topic whose name starts with `prefix`. */
    cleanUpPrefix(prefix: string): void;
};

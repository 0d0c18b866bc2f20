import { Kafka, type Producer } from 'kafkajs';
import type { Logger } from 'pino';
/** A kafkajs client for the example's own admin, feeder and reader, logging its warnings to pino. */
export declare function exampleKafka(brokers: readonly string[], clientId: string, logger: Logger): Kafka;
/**
 * The feeder's producer: idempotent, so that a retried batch is not written twice and the counts
 * stay exact; Java's partitioner (murmur2), as the app itself uses.
 */
export declare function feederProducer(kafka: Kafka): Producer;

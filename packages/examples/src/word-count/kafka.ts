import { Kafka, logLevel, Partitioners, type Producer } from 'kafkajs';
import type { Logger } from 'pino';

/** A kafkajs client for the example's own admin, feeder and reader, logging its warnings to pino. */
export function exampleKafka(brokers: readonly string[], clientId: string, logger: Logger): Kafka {
  const log = logger.child({ component: 'kafkajs' });
  return new Kafka({
    clientId,
    brokers: [...brokers],
    logLevel: logLevel.WARN,
    logCreator:
      () =>
      ({ level, log: entry }) => {
        const {
          message,
          timestamp: _t,
          logger: _l,
          ...fields
        } = entry as { message: string } & Record<string, unknown>;
        if (level === logLevel.ERROR) log.error(fields, message);
        else log.warn(fields, message);
      },
  });
}

/**
 * The feeder's producer: idempotent, so that a retried batch is not written twice and the counts
 * stay exact; Java's partitioner (murmur2), as the app itself uses.
 */
export function feederProducer(kafka: Kafka): Producer {
  return kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    createPartitioner: Partitioners.DefaultPartitioner,
  });
}

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
      ({ namespace, level, log: entry }) => {
        const {
          message,
          timestamp: _t,
          logger: _l,
          ...fields
        } = entry as { message: string } & Record<string, unknown>;
        // kafkajs logs every error response at ERROR in its Connection namespace, also the retriable
        // ones (a coordinator still loading) that the caller then retries or reports itself; so
        // are its retries of an unreachable broker (the caller reports the addresses at the end).
        if (namespace === 'Connection' || /Failed to connect|Connection error/.test(message))
          log.debug({ ...fields, namespace }, message);
        else if (level === logLevel.ERROR) log.error({ ...fields, namespace }, message);
        else log.warn({ ...fields, namespace }, message);
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

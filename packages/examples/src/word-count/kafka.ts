import { Kafka, logLevel } from 'kafkajs';
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

// The kafkajs client, with its logs routed into the app's pino logger.
// First: kafkajs must find core's replacements when it loads (kafkajs-patches.ts).
import './kafkajs-patches.ts';
import { Kafka, type KafkaConfig, type logCreator, logLevel } from 'kafkajs';
import type { Logger } from 'pino';
import type { ResolvedConfig } from '../config/streams-config.ts';
import { BrokerConnectivity, keepConnectivity } from './broker-connectivity.ts';
import { installIntoLoadedKafkajs } from './kafkajs-patches.ts';
import { AuthorizationRefusals } from './refusals.ts';
import { selfResolvingCondition, TransientConditions } from './transient-conditions.ts';

// Also into a copy of kafkajs the application loaded before core (read_committed fix).
installIntoLoadedKafkajs();

/** The client type for code outside kafka/, which may not import kafkajs itself. */
export type { Kafka } from 'kafkajs';

export function pinoLogCreator(
  logger: Logger,
  conditions = new TransientConditions(),
  refusals?: AuthorizationRefusals,
  connectivity?: BrokerConnectivity,
): logCreator {
  const kafkaLogger = logger.child({ component: 'kafkajs' });
  return () =>
    ({ namespace, level, log }) => {
      const {
        message,
        timestamp: _ts,
        logger: _l,
        ...extra
      } = log as { message: string } & Record<string, unknown>;
      const fields = { ...extra, namespace };
      if (refusals !== undefined && typeof extra.error === 'string') refusals.note(extra.error);
      const condition = level <= logLevel.WARN ? selfResolvingCondition(String(message), fields) : undefined;
      if (condition !== undefined) {
        // kafkajs retries these itself; the caller reports the error if the retries run out.
        const verdict = conditions.seen(condition);
        if (condition === 'a broker does not answer')
          connectivity?.failed(`${message} ${typeof extra.error === 'string' ? extra.error : ''}`.trim());
        if (verdict.level === 'warn')
          kafkaLogger.warn(
            { ...fields, condition, lastedMs: verdict.lastedMs },
            `${condition}: still so after ${Math.round(verdict.lastedMs / 1000)} s (${message})`,
          );
        else kafkaLogger.debug({ ...fields, condition }, message);
      } else if (level === logLevel.ERROR) kafkaLogger.error(fields, message);
      else if (level === logLevel.WARN) kafkaLogger.warn(fields, message);
      else if (level === logLevel.INFO) kafkaLogger.debug(fields, message);
      else kafkaLogger.trace(fields, message);
    };
}

const refusalsOf = new WeakMap<Kafka, AuthorizationRefusals>();

/**
 * The error, with the authorization refusal it stands for when kafkajs lost it (see refusals.ts).
 */
export function explainRefusal(kafka: Kafka, error: unknown): unknown {
  return refusalsOf.get(kafka)?.explain(error) ?? error;
}

export function createKafka(config: ResolvedConfig, clientIdSuffix = ''): Kafka {
  // kafkajs' INFO lines (joins, connects) are routine; they go to pino's debug level, and its
  // DEBUG lines (every request) to trace.
  const level = config.logger.isLevelEnabled('trace')
    ? logLevel.DEBUG
    : config.logger.isLevelEnabled('debug')
      ? logLevel.INFO
      : logLevel.WARN;
  const refusals = new AuthorizationRefusals();
  const connectivity = new BrokerConnectivity();
  const kafka = new Kafka({
    ...(config.kafkaClient as Partial<KafkaConfig>),
    clientId: `${config.clientId}${clientIdSuffix}`,
    brokers: config.brokers,
    logLevel: level,
    logCreator: pinoLogCreator(config.logger, new TransientConditions(), refusals, connectivity),
  });
  refusalsOf.set(kafka, refusals);
  keepConnectivity(kafka, connectivity);
  return kafka;
}

import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Logger, pino } from 'pino';
import { ConfigError } from '../errors.ts';
import type { ResolvedExceptionHandlers } from '../processor/exception-handlers.ts';
import type { Serde } from '../serdes/index.ts';
import { CONFIG_KEYS, type ConfigKey, REMOVED_KEYS } from './config-keys.ts';
import type {
  ConsumerConfig,
  MetricsRecordingLevel,
  ProcessingGuarantee,
  ProducerConfig,
  StreamsConfig,
} from './config-types.ts';
import { type ExceptionHandlerSettings, resolveExceptionHandlers } from './exception-handler-config.ts';
import { resolveSasl, resolveSsl } from './security-config.ts';
import { type ResolvedSourceDefaults, resolveSourceDefaults, type SourceDefaults } from './source-config.ts';

export type {
  ConsumerConfig,
  MetricsRecordingLevel,
  ProcessingGuarantee,
  ProducerConfig,
  StreamsConfig,
} from './config-types.ts';

export interface ResolvedConfig extends ResolvedSourceDefaults {
  applicationId: string;
  brokers: string[];
  clientId: string;
  kafkaClient: {
    ssl?: unknown;
    sasl?: unknown;
    connectionTimeout?: number;
    requestTimeout?: number;
    socketFactory?: unknown;
  };
  processingGuarantee: 'at_least_once' | 'exactly_once';
  exactlyOnce: boolean;
  /** exactly_once_v2: one transaction per stream thread, not per task. */
  exactlyOnceV2: boolean;
  commitIntervalMs: number;
  stateDir: string;
  defaultKeySerde?: Serde<unknown>;
  defaultValueSerde?: Serde<unknown>;
  logger: Logger;
  exceptionHandlers: ResolvedExceptionHandlers;
  applicationServer?: string;
  /** KIP-345's group.instance.id; undefined: a dynamic member. */
  groupInstanceId?: string;
  replicationFactor: number;
  /** The high-availability assignment's settings (issue 37): with numStandbyReplicas > 0 the leader runs it. */
  numStandbyReplicas: number;
  acceptableRecoveryLag: number;
  maxWarmupReplicas: number;
  probingRebalanceIntervalMs: number;
  maxUncommittedBytes: number;
  statestoreCacheMaxBytes: number;
  dslStoreFormat: 'DEFAULT' | 'HEADERS';
  taskStallTimeoutMs: number;
  maxTaskIdleMs: number;
  metadataMaxAgeMs: number;
  producer: Required<ProducerConfig>;
  consumer: Required<ConsumerConfig>;
  metricsRecordingLevel: MetricsRecordingLevel;
  heapGrowingPercent: number;
}

/**
 * Validates the user's config and fills in defaults. Every problem is collected so that one
 * ConfigError lists them all; an explicit setting is never silently overridden.
 */
export function resolveStreamsConfig(input: StreamsConfig): ResolvedConfig {
  const problems: string[] = [];
  const raw = (input ?? {}) as unknown as Record<string, unknown>;
  for (const key of Object.keys(raw)) {
    if (key in REMOVED_KEYS) problems.push(`"${key}" was removed: ${REMOVED_KEYS[key]}`);
    else if (!(key in CONFIG_KEYS)) problems.push(`unknown key "${key}"`);
  }
  const isPositiveInt = (v: unknown) => typeof v === 'number' && Number.isInteger(v) && v > 0;

  if (typeof raw.applicationId !== 'string' || !/^[a-zA-Z0-9._-]+$/.test(raw.applicationId)) {
    problems.push(
      `"applicationId" is required: a string of letters, digits, ".", "_" or "-" (it names the consumer group and internal topics), got ${JSON.stringify(raw.applicationId)}`,
    );
  }
  const brokers =
    typeof raw.brokers === 'string'
      ? raw.brokers
          .split(',')
          .map((b) => b.trim())
          .filter(Boolean)
      : raw.brokers;
  if (!Array.isArray(brokers) || brokers.length === 0 || !brokers.every((b) => typeof b === 'string')) {
    problems.push(`"brokers" is required: a list of "host:port" strings, got ${JSON.stringify(raw.brokers)}`);
  }
  // Every key with a generic check: a set value must pass it. Keys with messages of their own
  // (applicationId, brokers, the handlers, ssl, sasl, the nested objects) are
  // checked around this loop.
  for (const [key, definition] of Object.entries(CONFIG_KEYS) as [string, ConfigKey][]) {
    const value = raw[key];
    if (value !== undefined && definition.check && !definition.check.test(value))
      problems.push(`"${key}" must be ${definition.type}, got ${JSON.stringify(value) ?? typeof value}`);
  }
  const exceptionHandlers = resolveExceptionHandlers(raw as ExceptionHandlerSettings, problems);
  const sourceDefaults = resolveSourceDefaults(raw as SourceDefaults, problems);
  // Checked on their own: their messages must never print a value (passwords, keys).
  const ssl = resolveSsl(raw.ssl, problems);
  const sasl = resolveSasl(raw.sasl, problems);
  const metricsIn = (raw.metrics ?? {}) as Record<string, unknown>;
  for (const k of Object.keys(metricsIn))
    if (!(k in METRICS_KEYS))
      problems.push(`unknown key "metrics.${k}"; the one key is ${Object.keys(METRICS_KEYS).join(', ')}`);
  const recordingLevel = metricsIn.recordingLevel ?? METRICS_KEYS.recordingLevel.default;
  if (!METRICS_KEYS.recordingLevel.check.test(recordingLevel))
    problems.push(
      `"metrics.recordingLevel" must be ${METRICS_KEYS.recordingLevel.type}, got ${JSON.stringify(recordingLevel)}`,
    );
  const producerIn = (raw.producer ?? {}) as Record<string, unknown>;
  const consumerIn = (raw.consumer ?? {}) as Record<string, unknown>;
  for (const k of Object.keys(producerIn))
    if (!(k in PRODUCER_KEYS)) problems.push(`unknown key "producer.${k}"`);
  for (const k of Object.keys(consumerIn))
    if (!(k in CONSUMER_KEYS)) problems.push(`unknown key "consumer.${k}"`);

  const requested = (raw.processingGuarantee ??
    CONFIG_KEYS.processingGuarantee.default) as ProcessingGuarantee;
  const guarantee = requested === 'exactly_once_v2' ? 'exactly_once' : requested;
  const exactlyOnce = guarantee === 'exactly_once';
  // Kafka Streams' defaults: a short interval under exactly_once keeps transactions small and
  // output latency low; at_least_once commits rarely because a commit costs a round trip.
  const commitIntervalMs = (raw.commitIntervalMs as number | undefined) ?? (exactlyOnce ? 100 : 30_000);

  const taskStallTimeoutMs =
    (raw.taskStallTimeoutMs as number | undefined) ?? Math.max(60_000, 3 * commitIntervalMs);
  // Between commits a caught-up task's committed offset legitimately stands still for a whole
  // interval; a shorter timeout would recreate healthy tasks.
  if (isPositiveInt(taskStallTimeoutMs) && taskStallTimeoutMs < 2 * commitIntervalMs)
    problems.push(
      `"taskStallTimeoutMs" = ${taskStallTimeoutMs} must be at least twice commitIntervalMs (${commitIntervalMs} ms), or 0 to turn the watchdog off`,
    );

  // Unset keys take the table's default; the isolation level's depends on the guarantee.
  const producer = withDefaults(producerIn, PRODUCER_KEYS) as Required<ProducerConfig>;
  const consumer = withDefaults(consumerIn, CONSUMER_KEYS) as Required<ConsumerConfig>;
  consumer.isolationLevel ??= exactlyOnce ? 'read_committed' : 'read_uncommitted';
  for (const [prefix, values, keys] of [
    ['producer', producer, PRODUCER_KEYS],
    ['consumer', consumer, CONSUMER_KEYS],
  ] as const) {
    for (const [k, definition] of Object.entries(keys) as [string, ConfigKey][])
      if (!definition.check?.test((values as Record<string, unknown>)[k]))
        problems.push(`"${prefix}.${k}" must be ${definition.type}`);
  }

  if (exactlyOnce) {
    // The seed documents' rules: each of these would let exactly_once silently degrade.
    const eos = (key: string, value: unknown, reason: string) =>
      problems.push(
        `processingGuarantee 'exactly_once' conflicts with ${key} = ${JSON.stringify(value)}: ${reason}`,
      );
    if (consumer.isolationLevel !== 'read_committed')
      eos(
        'consumer.isolationLevel',
        consumer.isolationLevel,
        'consumers must read only committed records (use read_committed or leave it unset)',
      );
    if (producer.idempotent !== true)
      eos(
        'producer.idempotent',
        producer.idempotent,
        'transactions need the idempotent producer (leave it unset or true)',
      );
    if (producer.acks !== -1)
      eos(
        'producer.acks',
        producer.acks,
        'a write must be acknowledged by all in-sync replicas (use -1 or leave it unset)',
      );
    if (producer.maxInFlightRequests > 5)
      eos(
        'producer.maxInFlightRequests',
        producer.maxInFlightRequests,
        'the idempotent producer keeps order and drops duplicates only with at most 5 requests in flight',
      );
    if (producer.retries <= 0)
      eos(
        'producer.retries',
        producer.retries,
        'a failed send must be retried, not dropped (use a value > 0 or leave it unset)',
      );
    if (producer.transactionTimeoutMs < commitIntervalMs)
      eos(
        'producer.transactionTimeoutMs',
        producer.transactionTimeoutMs,
        `a transaction stays open for a whole commit interval (${commitIntervalMs} ms); the timeout must be at least that`,
      );
  }

  if (problems.length > 0) {
    throw new ConfigError(`Invalid StreamsConfig:\n  - ${problems.join('\n  - ')}`);
  }

  const applicationId = raw.applicationId as string;
  const logger =
    typeof raw.logger === 'object' && raw.logger !== null
      ? (raw.logger as Logger)
      : pino({ level: (raw.logger as string | undefined) ?? CONFIG_KEYS.logger.default, name: 'kstreams' });
  const kafkaClient: ResolvedConfig['kafkaClient'] = {};
  for (const k of ['connectionTimeout', 'requestTimeout', 'socketFactory'] as const) {
    if (raw[k] !== undefined) (kafkaClient as Record<string, unknown>)[k] = raw[k];
  }
  if (ssl !== undefined) kafkaClient.ssl = ssl;
  if (sasl !== undefined) kafkaClient.sasl = sasl;
  return {
    applicationId,
    brokers: brokers as string[],
    clientId: (raw.clientId as string | undefined) ?? applicationId,
    kafkaClient,
    processingGuarantee: guarantee,
    exactlyOnce,
    exactlyOnceV2: raw.processingGuarantee === 'exactly_once_v2',
    commitIntervalMs,
    stateDir: (raw.stateDir as string | undefined) ?? join(tmpdir(), 'kstreams'),
    defaultKeySerde: raw.defaultKeySerde as Serde<unknown> | undefined,
    defaultValueSerde: raw.defaultValueSerde as Serde<unknown> | undefined,
    logger,
    exceptionHandlers,
    ...sourceDefaults,
    applicationServer: raw.applicationServer as string | undefined,
    groupInstanceId: raw.groupInstanceId as string | undefined,
    replicationFactor: (raw.replicationFactor as number | undefined) ?? CONFIG_KEYS.replicationFactor.default,
    numStandbyReplicas:
      (raw.numStandbyReplicas as number | undefined) ?? CONFIG_KEYS.numStandbyReplicas.default,
    acceptableRecoveryLag:
      (raw.acceptableRecoveryLag as number | undefined) ?? CONFIG_KEYS.acceptableRecoveryLag.default,
    maxWarmupReplicas: (raw.maxWarmupReplicas as number | undefined) ?? CONFIG_KEYS.maxWarmupReplicas.default,
    probingRebalanceIntervalMs:
      (raw.probingRebalanceIntervalMs as number | undefined) ??
      CONFIG_KEYS.probingRebalanceIntervalMs.default,
    maxUncommittedBytes:
      (raw.maxUncommittedBytes as number | undefined) ?? CONFIG_KEYS.maxUncommittedBytes.default,
    statestoreCacheMaxBytes:
      (raw.statestoreCacheMaxBytes as number | undefined) ?? CONFIG_KEYS.statestoreCacheMaxBytes.default,
    dslStoreFormat:
      (raw.dslStoreFormat as 'DEFAULT' | 'HEADERS' | undefined) ??
      (CONFIG_KEYS.dslStoreFormat.default as 'DEFAULT'),
    taskStallTimeoutMs,
    maxTaskIdleMs: (raw.maxTaskIdleMs as number | undefined) ?? CONFIG_KEYS.maxTaskIdleMs.default,
    metadataMaxAgeMs: (raw.metadataMaxAgeMs as number | undefined) ?? CONFIG_KEYS.metadataMaxAgeMs.default,
    producer,
    consumer,
    metricsRecordingLevel: recordingLevel as MetricsRecordingLevel,
    heapGrowingPercent:
      (raw.heapGrowingPercent as number | undefined) ?? CONFIG_KEYS.heapGrowingPercent.default,
  };
}

const PRODUCER_KEYS = CONFIG_KEYS.producer.keys;
const CONSUMER_KEYS = CONFIG_KEYS.consumer.keys;
const METRICS_KEYS = CONFIG_KEYS.metrics.keys;

/** The set values of a nested object, with the table's constant default for each unset one. */
function withDefaults(
  values: Record<string, unknown>,
  keys: Record<string, ConfigKey>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, definition] of Object.entries(keys)) out[k] = values[k] ?? definition.default;
  return out;
}

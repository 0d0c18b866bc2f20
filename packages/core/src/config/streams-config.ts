import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Logger, pino } from 'pino';
import { ConfigError } from '../errors.ts';
import type { ResolvedExceptionHandlers } from '../processor/exception-handlers.ts';
import type { Serde } from '../serdes/index.ts';
import { DEFAULT_CACHE_MAX_BYTES } from '../state/internals/thread-cache.ts';
import { type ExceptionHandlerSettings, resolveExceptionHandlers } from './exception-handler-config.ts';
import { resolveSasl, resolveSsl } from './security-config.ts';
import { type ResolvedSourceDefaults, resolveSourceDefaults, type SourceDefaults } from './source-config.ts';

/**
 * The two exactly-once guarantees are Kafka Streams': `exactly_once_v2` (its default since 3.0)
 * commits all the tasks of a stream thread in one transaction, fenced by the consumer group
 * generation (KIP-447); `exactly_once` gives each task a transactional producer of its own, fenced
 * by the task's transactional id. Both are exactly once; v2 needs one producer per thread instead
 * of one per task.
 */
export type ProcessingGuarantee = 'at_least_once' | 'exactly_once' | 'exactly_once_v2';

/** Producer settings that exactly_once depends on; set them only to override the defaults. */
export interface ProducerConfig {
  idempotent?: boolean;
  /** -1 (all), 0 or 1, as in kafkajs `send({ acks })`. */
  acks?: number;
  maxInFlightRequests?: number;
  retries?: number;
  transactionTimeoutMs?: number;
  /**
   * Java's max.request.size: a sink record larger than this (serialized, with Kafka's overhead) is
   * a RecordTooLargeError for the production exception handler. Default 1,048,576.
   */
  maxRequestSize?: number;
}

export interface ConsumerConfig {
  isolationLevel?: 'read_committed' | 'read_uncommitted';
  sessionTimeoutMs?: number;
  heartbeatIntervalMs?: number;
  rebalanceTimeoutMs?: number;
  maxWaitTimeMs?: number;
}

export interface StreamsConfig extends ExceptionHandlerSettings, SourceDefaults {
  applicationId: string;
  brokers: string[] | string;
  clientId?: string;
  /** Passed through to kafkajs as they are. */
  ssl?: unknown;
  sasl?: unknown;
  connectionTimeout?: number;
  requestTimeout?: number;
  /** kafkajs' socketFactory, passed through: how the app opens every connection (e.g. through a proxy). */
  socketFactory?: unknown;
  processingGuarantee?: ProcessingGuarantee;
  commitIntervalMs?: number;
  stateDir?: string;
  defaultKeySerde?: Serde<unknown>;
  defaultValueSerde?: Serde<unknown>;
  logger?: Logger | pino.LevelWithSilent;
  /** `host:port` where this instance answers interactive queries. */
  applicationServer?: string;
  numStandbyReplicas?: number;
  /** Replication factor of the internal topics; -1 takes the broker's default. */
  replicationFactor?: number;
  /**
   * Once the uncommitted writes in the store buffers of all this instance's tasks together pass
   * this many bytes (an estimated ~360 bytes of overhead per entry included), the tasks commit
   * early, so memory stays bounded whatever the commit interval (Kafka Streams' KIP-892
   * `statestore.uncommitted.max.bytes`). Default 64 MiB.
   */
  maxUncommittedBytes?: number;
  /**
   * Kafka Streams' `statestore.cache.max.bytes`: the record cache of the DSL's stores
   * (aggregations, windowed aggregations, tables materialized by name), for all tasks of the
   * instance. Updates of a key between two commits go downstream and to the changelog once, with
   * the latest value; when the cache is full, the store being written flushes early. 0 forwards
   * every update. Default 10 MiB (10,485,760).
   */
  statestoreCacheMaxBytes?: number;
  /**
   * A task whose input is behind but whose position and committed offsets have not moved for this
   * long is logged at error and recreated from its committed offsets; 0 turns the watchdog off.
   * Default: 60 s, or 3 commit intervals if that is longer.
   */
  taskStallTimeoutMs?: number;
  /**
   * Kafka Streams' max.task.idle.ms: how long a task with several input partitions waits for one
   * that has no data before it processes the others (timestamp order across them is only as good
   * as what is buffered). 0 (default): wait only for data known to be on the broker; -1: never wait.
   * Data known to be on the broker is waited for at least this long too (else a second or so).
   */
  maxTaskIdleMs?: number;
  producer?: ProducerConfig;
  consumer?: ConsumerConfig;
  /**
   * Kafka Streams' `metrics.recording.level`: `info` (default) records thread, task, lag, restore
   * and transaction metrics; `debug` adds the state stores'; `off` records nothing (benchmarks).
   */
  metrics?: { recordingLevel?: MetricsRecordingLevel };
  /**
   * V8's `--heap-growing-percent`, set for the process when the app starts: a full collection
   * runs once the old generation is (1 + p / 100) times what the last one left alive. V8's own
   * choice goes up to 4x for a program that promotes as steadily as a stream processor, which
   * then holds four times its live data. Default 50; 0 leaves V8's choice (in the benchmarks up to
   * ~30% less CPU per record, for 1.5-1.9x the peak RSS); node's own --heap-growing-percent wins.
   * One value per process: of several apps in one process, the last one started sets it.
   */
  heapGrowingPercent?: number;
}

export type MetricsRecordingLevel = 'info' | 'debug' | 'off';

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
  replicationFactor: number;
  maxUncommittedBytes: number;
  statestoreCacheMaxBytes: number;
  taskStallTimeoutMs: number;
  maxTaskIdleMs: number;
  producer: Required<ProducerConfig>;
  consumer: Required<ConsumerConfig>;
  metricsRecordingLevel: MetricsRecordingLevel;
  heapGrowingPercent: number;
}

const KNOWN_KEYS: Record<keyof StreamsConfig, string | undefined> = {
  applicationId: 'string',
  brokers: 'string[] | string',
  clientId: 'string',
  ssl: 'object | boolean',
  sasl: 'object',
  connectionTimeout: 'number',
  requestTimeout: 'number',
  socketFactory: 'function (kafkajs socketFactory)',
  processingGuarantee: "'at_least_once' | 'exactly_once' | 'exactly_once_v2'",
  commitIntervalMs: 'number',
  stateDir: 'string',
  defaultKeySerde: 'Serde',
  defaultValueSerde: 'Serde',
  logger: 'pino logger | level',
  // Checked by resolveExceptionHandlers and (the last two) resolveSourceDefaults.
  deserializationExceptionHandler: undefined,
  processingExceptionHandler: undefined,
  productionExceptionHandler: undefined,
  errors: undefined,
  defaultTimestampExtractor: undefined,
  autoOffsetReset: undefined,
  applicationServer: "'host:port'",
  numStandbyReplicas: 'number',
  replicationFactor: 'number',
  maxUncommittedBytes: 'number',
  statestoreCacheMaxBytes: 'a number of bytes >= 0 (0: no record cache)',
  taskStallTimeoutMs: 'number (0 to turn the watchdog off)',
  maxTaskIdleMs: 'a number of ms >= 0, or -1 to never wait',
  producer: 'object',
  consumer: 'object',
  metrics: "{ recordingLevel: 'info' | 'debug' | 'off' }",
  heapGrowingPercent: 'an integer >= 0 (0: V8 chooses)',
};

/** Keys of earlier versions, with what replaced them. */
const REMOVED_KEYS: Record<string, string> = {
  experimentalTransactionPerThread:
    "processingGuarantee 'exactly_once_v2' runs one transaction per stream thread now; remove the key " +
    "(or use 'exactly_once' for one transaction per task)",
};

const PRODUCER_KEYS = [
  'idempotent',
  'acks',
  'maxInFlightRequests',
  'retries',
  'transactionTimeoutMs',
  'maxRequestSize',
];
const CONSUMER_KEYS = [
  'isolationLevel',
  'sessionTimeoutMs',
  'heartbeatIntervalMs',
  'rebalanceTimeoutMs',
  'maxWaitTimeMs',
];

// Measured in bench/ (README, Memory): the word count's peak RSS 281-324 -> 185-216 MB, the
// windowed count's 495 -> 256-266 MB.
const DEFAULT_HEAP_GROWING_PERCENT = 50;

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/**
 * Validates the user's config and fills in defaults. Every problem is collected so that one
 * ConfigError lists them all; an explicit setting is never silently overridden.
 */
export function resolveStreamsConfig(input: StreamsConfig): ResolvedConfig {
  const problems: string[] = [];
  const raw = (input ?? {}) as unknown as Record<string, unknown>;
  for (const key of Object.keys(raw)) {
    if (key in REMOVED_KEYS) problems.push(`"${key}" was removed: ${REMOVED_KEYS[key]}`);
    else if (!(key in KNOWN_KEYS)) problems.push(`unknown key "${key}"`);
  }
  const isPositiveInt = (v: unknown) => typeof v === 'number' && Number.isInteger(v) && v > 0;
  const expect = (key: keyof StreamsConfig, ok: boolean) => {
    if (raw[key] !== undefined && !ok) {
      problems.push(
        `"${key}" must be ${KNOWN_KEYS[key]}, got ${JSON.stringify(raw[key]) ?? typeof raw[key]}`,
      );
    }
  };

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
  expect('clientId', typeof raw.clientId === 'string');
  expect('socketFactory', typeof raw.socketFactory === 'function');
  expect(
    'processingGuarantee',
    raw.processingGuarantee === 'at_least_once' ||
      raw.processingGuarantee === 'exactly_once' ||
      raw.processingGuarantee === 'exactly_once_v2',
  );
  expect('commitIntervalMs', isPositiveInt(raw.commitIntervalMs));
  expect('stateDir', typeof raw.stateDir === 'string');
  expect('connectionTimeout', isPositiveInt(raw.connectionTimeout));
  expect('requestTimeout', isPositiveInt(raw.requestTimeout));
  expect('replicationFactor', raw.replicationFactor === -1 || isPositiveInt(raw.replicationFactor));
  expect('maxUncommittedBytes', isPositiveInt(raw.maxUncommittedBytes));
  expect(
    'statestoreCacheMaxBytes',
    raw.statestoreCacheMaxBytes === 0 || isPositiveInt(raw.statestoreCacheMaxBytes),
  );
  expect('heapGrowingPercent', raw.heapGrowingPercent === 0 || isPositiveInt(raw.heapGrowingPercent));
  expect('taskStallTimeoutMs', raw.taskStallTimeoutMs === 0 || isPositiveInt(raw.taskStallTimeoutMs));
  expect(
    'maxTaskIdleMs',
    raw.maxTaskIdleMs === 0 || raw.maxTaskIdleMs === -1 || isPositiveInt(raw.maxTaskIdleMs),
  );
  expect(
    'applicationServer',
    typeof raw.applicationServer === 'string' && /^[^:\s]+:\d+$/.test(raw.applicationServer),
  );
  for (const key of ['defaultKeySerde', 'defaultValueSerde'] as const) {
    const s = raw[key] as { serialize?: unknown; deserialize?: unknown } | undefined;
    expect(key, typeof s?.serialize === 'function' && typeof s?.deserialize === 'function');
  }
  expect(
    'logger',
    (typeof raw.logger === 'string' && LEVELS.includes(raw.logger)) ||
      (typeof raw.logger === 'object' &&
        raw.logger !== null &&
        typeof (raw.logger as Logger).child === 'function'),
  );
  const exceptionHandlers = resolveExceptionHandlers(raw as ExceptionHandlerSettings, problems);
  const sourceDefaults = resolveSourceDefaults(raw as SourceDefaults, problems);
  // Checked on their own: their messages must never print a value (passwords, keys).
  const ssl = resolveSsl(raw.ssl, problems);
  const sasl = resolveSasl(raw.sasl, problems);
  if (raw.numStandbyReplicas !== undefined && raw.numStandbyReplicas !== 0) {
    problems.push(
      `"numStandbyReplicas" = ${JSON.stringify(raw.numStandbyReplicas)} is not supported yet: standby tasks are not implemented; use 0 (a task's state is restored from its changelog when it moves)`,
    );
  }
  const metricsIn = (raw.metrics ?? {}) as Record<string, unknown>;
  for (const k of Object.keys(metricsIn))
    if (k !== 'recordingLevel') problems.push(`unknown key "metrics.${k}"; the one key is recordingLevel`);
  const recordingLevel = metricsIn.recordingLevel ?? 'info';
  if (!['info', 'debug', 'off'].includes(recordingLevel as string))
    problems.push(
      `"metrics.recordingLevel" must be 'info', 'debug' (adds state store metrics) or 'off', got ${JSON.stringify(recordingLevel)}`,
    );
  const producerIn = (raw.producer ?? {}) as Record<string, unknown>;
  const consumerIn = (raw.consumer ?? {}) as Record<string, unknown>;
  for (const k of Object.keys(producerIn))
    if (!PRODUCER_KEYS.includes(k)) problems.push(`unknown key "producer.${k}"`);
  for (const k of Object.keys(consumerIn))
    if (!CONSUMER_KEYS.includes(k)) problems.push(`unknown key "consumer.${k}"`);

  const requested = (raw.processingGuarantee as ProcessingGuarantee | undefined) ?? 'at_least_once';
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

  const producer: Required<ProducerConfig> = {
    idempotent: (producerIn.idempotent as boolean | undefined) ?? true,
    acks: (producerIn.acks as number | undefined) ?? -1,
    maxInFlightRequests: (producerIn.maxInFlightRequests as number | undefined) ?? 5,
    // kafkajs warns that a bounded retry count weakens the idempotent producer; Kafka's Java
    // producer also retries without bound (until its delivery timeout).
    retries: (producerIn.retries as number | undefined) ?? Number.MAX_SAFE_INTEGER,
    transactionTimeoutMs: (producerIn.transactionTimeoutMs as number | undefined) ?? 10_000,
    maxRequestSize: (producerIn.maxRequestSize as number | undefined) ?? 1_048_576,
  };
  const consumer: Required<ConsumerConfig> = {
    isolationLevel:
      (consumerIn.isolationLevel as ConsumerConfig['isolationLevel']) ??
      (exactlyOnce ? 'read_committed' : 'read_uncommitted'),
    sessionTimeoutMs: (consumerIn.sessionTimeoutMs as number | undefined) ?? 10_000,
    heartbeatIntervalMs: (consumerIn.heartbeatIntervalMs as number | undefined) ?? 1_000,
    rebalanceTimeoutMs: (consumerIn.rebalanceTimeoutMs as number | undefined) ?? 30_000,
    maxWaitTimeMs: (consumerIn.maxWaitTimeMs as number | undefined) ?? 100,
  };
  if (typeof producer.idempotent !== 'boolean') problems.push('"producer.idempotent" must be a boolean');
  if (![-1, 0, 1].includes(producer.acks)) problems.push('"producer.acks" must be -1 (all), 0 or 1');
  if (!isPositiveInt(producer.maxInFlightRequests))
    problems.push('"producer.maxInFlightRequests" must be a positive integer');
  if (!Number.isInteger(producer.retries) || producer.retries < 0)
    problems.push('"producer.retries" must be an integer >= 0');
  if (!isPositiveInt(producer.transactionTimeoutMs))
    problems.push('"producer.transactionTimeoutMs" must be a positive integer');
  if (!isPositiveInt(producer.maxRequestSize))
    problems.push('"producer.maxRequestSize" must be a positive integer (bytes)');
  if (!['read_committed', 'read_uncommitted'].includes(consumer.isolationLevel))
    problems.push(`"consumer.isolationLevel" must be 'read_committed' or 'read_uncommitted'`);
  for (const k of [
    'sessionTimeoutMs',
    'heartbeatIntervalMs',
    'rebalanceTimeoutMs',
    'maxWaitTimeMs',
  ] as const) {
    if (!isPositiveInt(consumer[k])) problems.push(`"consumer.${k}" must be a positive integer`);
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
      : pino({ level: (raw.logger as string | undefined) ?? 'info', name: 'kstreams' });
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
    replicationFactor: (raw.replicationFactor as number | undefined) ?? -1,
    maxUncommittedBytes: (raw.maxUncommittedBytes as number | undefined) ?? 64 * 1024 * 1024,
    statestoreCacheMaxBytes: (raw.statestoreCacheMaxBytes as number | undefined) ?? DEFAULT_CACHE_MAX_BYTES,
    taskStallTimeoutMs,
    maxTaskIdleMs: (raw.maxTaskIdleMs as number | undefined) ?? 0,
    producer,
    consumer,
    metricsRecordingLevel: recordingLevel as MetricsRecordingLevel,
    heapGrowingPercent: (raw.heapGrowingPercent as number | undefined) ?? DEFAULT_HEAP_GROWING_PERCENT,
  };
}

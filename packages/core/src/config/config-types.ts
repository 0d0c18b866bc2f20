// The shape of the user's config. Each key's meaning, default and validation live in one table,
// CONFIG_KEYS (config-keys.ts), which the validation reads and docs/configuration.md is generated
// from; the compiler makes that table name every key of StreamsConfig, and no other.
import type { Logger, pino } from 'pino';
import type { Serde } from '../serdes/index.ts';
import type { ExceptionHandlerSettings } from './exception-handler-config.ts';
import type { SourceDefaults } from './source-config.ts';

/**
 * The two exactly-once guarantees are Kafka Streams': `exactly_once_v2` (its default since 3.0)
 * commits all the tasks of a stream thread in one transaction, fenced by the consumer group
 * generation (KIP-447); `exactly_once` gives each task a transactional producer of its own, fenced
 * by the task's transactional id. Both are exactly once; v2 needs one producer per thread instead
 * of one per task.
 */
export type ProcessingGuarantee = 'at_least_once' | 'exactly_once' | 'exactly_once_v2';

export type MetricsRecordingLevel = 'info' | 'debug' | 'off';

/** Producer settings that exactly_once depends on; set them only to override the defaults. */
export interface ProducerConfig {
  idempotent?: boolean;
  /** -1 (all), 0 or 1, as in kafkajs `send({ acks })`. */
  acks?: number;
  maxInFlightRequests?: number;
  retries?: number;
  transactionTimeoutMs?: number;
  /** Java's max.request.size: a larger sink record is a RecordTooLargeError. Default 1,048,576. */
  maxRequestSize?: number;
}

export interface ConsumerConfig {
  isolationLevel?: 'read_committed' | 'read_uncommitted';
  sessionTimeoutMs?: number;
  heartbeatIntervalMs?: number;
  rebalanceTimeoutMs?: number;
  maxWaitTimeMs?: number;
}

/**
 * The config of a KafkaStreams app. Every key, with its default and the values it takes, is in
 * the configuration reference (docs/configuration.md); a wrong key or value is a ConfigError that
 * lists every problem at once.
 */
export interface StreamsConfig extends ExceptionHandlerSettings, SourceDefaults {
  /** Names the consumer group, the internal topics and the state directory. */
  applicationId: string;
  /** `host:port` list, or one comma-separated string. */
  brokers: string[] | string;
  clientId?: string;
  /** TLS: `true` or Node TLS options; passed to kafkajs with secrets redacted in any output. */
  ssl?: unknown;
  /** SASL: `{ mechanism, username, password }` (plain, scram-sha-256/512), oauthbearer or aws. */
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
  /** Static membership (KIP-345): this instance's own id in the group, stable across restarts. */
  groupInstanceId?: string;
  /** Kafka Streams' num.standby.replicas: standby copies of each stateful task on other instances. */
  numStandbyReplicas?: number;
  /** KIP-441's acceptable.recovery.lag: records behind that still count as caught up. */
  acceptableRecoveryLag?: number;
  /** KIP-441's max.warmup.replicas: warm-up replicas in the assignment at once. */
  maxWarmupReplicas?: number;
  /** KIP-441's probing.rebalance.interval.ms: how often to rebalance while warm-ups restore. */
  probingRebalanceIntervalMs?: number;
  /** Replication factor of the internal topics; -1 takes the broker's default. */
  replicationFactor?: number;
  /** KIP-892's `statestore.uncommitted.max.bytes`: commit early past this many buffered bytes. */
  maxUncommittedBytes?: number;
  /** Kafka Streams' `statestore.cache.max.bytes`: the DSL stores' record cache; 0 turns it off. */
  statestoreCacheMaxBytes?: number;
  /** Kafka Streams' `dsl.store.format` (KIP-1285): 'HEADERS' makes the DSL's stores headers-aware. */
  dslStoreFormat?: 'DEFAULT' | 'HEADERS';
  /** How long a task may stand still while behind before it is recreated; 0 turns the watchdog off. */
  taskStallTimeoutMs?: number;
  /** Kafka Streams' max.task.idle.ms; -1 never waits for an empty input partition. */
  maxTaskIdleMs?: number;
  /** Kafka Streams' metadata.max.age.ms: how often pattern sources look for new matching topics. */
  metadataMaxAgeMs?: number;
  producer?: ProducerConfig;
  consumer?: ConsumerConfig;
  /** Kafka Streams' `metrics.recording.level`: 'info' (default), 'debug' or 'off'. */
  metrics?: { recordingLevel?: MetricsRecordingLevel };
  /** V8's `--heap-growing-percent` for the process; 0 leaves V8's choice. */
  heapGrowingPercent?: number;
}

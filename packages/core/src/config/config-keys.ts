// The one definition of the config keys: what each means, its type, default and the check a set
// value must pass. resolveStreamsConfig reads this table (unknown keys, generic checks, constant
// defaults) and scripts/docs/config-reference.ts writes docs/configuration.md from it, so the
// reference and the validation cannot drift. Adding a key: its field in StreamsConfig
// (config-types.ts) and its entry here; the compiler refuses one without the other.
import { DEFAULT_CACHE_MAX_BYTES } from '../state/internals/thread-cache.ts';
import type { ConsumerConfig, ProducerConfig, StreamsConfig } from './config-types.ts';

/** A check of a set value, with the words the reference shows for it. */
export interface Check {
  readonly rule: string;
  readonly test: (value: unknown) => boolean;
}

export interface ConfigKey {
  /** What the key takes, as the error message says it: `"key" must be <type>`. */
  readonly type: string;
  /** What the key does (markdown). */
  readonly meaning: string;
  /** The constant that resolution fills in when the key is not set. */
  readonly default?: unknown;
  /** The default in words, when it is computed, absent, or reads better so. */
  readonly defaultText?: string;
  /** The check resolveStreamsConfig runs on a set value; absent when `checkedBy` has its own. */
  readonly check?: Check;
  /** Where a key whose messages say more than "must be <type>" is checked, and its rule in words. */
  readonly checkedBy?: { readonly where: string; readonly rule: string };
  /** Keys of an object-valued key (`producer.*`, `consumer.*`, `metrics.*`, `errors.*`). */
  readonly keys?: Readonly<Record<string, ConfigKey>>;
}

const isPositiveInt = (v: unknown) => typeof v === 'number' && Number.isInteger(v) && v > 0;
const positiveInt: Check = { rule: 'an integer > 0', test: isPositiveInt };
const string: Check = { rule: 'a string', test: (v) => typeof v === 'string' };
/** 60000 -> "60,000", without toLocaleString: its first call loads ICU (50 ms of every start). */
const grouped = (n: number) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
const atLeast = (min: number): Check => ({
  rule: `an integer >= ${grouped(min)}`,
  test: (v) => typeof v === 'number' && Number.isSafeInteger(v) && v >= min,
});
/** The high-availability assignor's keys: read when standbys are on. */
const withStandbys =
  'In effect with `numStandbyReplicas` > 0, which switches the leader to the high-availability task assignor (see docs/state-and-interactive-queries.md).';
const orValues = (check: Check, ...values: number[]): Check => ({
  rule: `${values.join(' or ')}, or ${check.rule}`,
  test: (v) => values.includes(v as number) || check.test(v),
});
const oneOf = (...values: readonly unknown[]): Check => ({
  rule: `one of ${values.map((v) => JSON.stringify(v)).join(', ')}`,
  test: (v) => values.includes(v),
});
const SERDE: Check = {
  rule: 'an object with serialize and deserialize functions',
  test: (v) => {
    const s = v as { serialize?: unknown; deserialize?: unknown } | undefined;
    return typeof s?.serialize === 'function' && typeof s?.deserialize === 'function';
  },
};
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const eosOverride = 'exactly_once refuses a setting that would weaken it';

const PRODUCER_KEYS = {
  idempotent: {
    type: 'a boolean',
    default: true,
    check: { rule: 'true or false', test: (v) => typeof v === 'boolean' },
    meaning: `The idempotent producer (no duplicates on retry). Transactions need it: ${eosOverride} (false).`,
  },
  acks: {
    type: '-1 (all), 0 or 1',
    default: -1,
    check: oneOf(-1, 0, 1),
    meaning: `Acknowledgements a write waits for, as kafkajs' \`send({ acks })\`; -1: all in-sync replicas. ${eosOverride} (0 or 1).`,
  },
  maxInFlightRequests: {
    type: 'a positive integer',
    default: 5,
    check: positiveInt,
    meaning: `Requests in flight per connection. The idempotent producer keeps order only with at most 5: ${eosOverride} (more than 5).`,
  },
  retries: {
    type: 'an integer >= 0',
    default: Number.MAX_SAFE_INTEGER,
    defaultText: 'unbounded (`Number.MAX_SAFE_INTEGER`)',
    check: { rule: 'an integer >= 0', test: (v) => Number.isInteger(v) && (v as number) >= 0 },
    meaning:
      'Retries of a failed send. Unbounded like the Java producer: kafkajs warns that a bounded count weakens the idempotent producer. exactly_once refuses 0.',
  },
  transactionTimeoutMs: {
    type: 'a positive integer',
    default: 10_000,
    check: positiveInt,
    meaning:
      'Transaction timeout (ms). A transaction stays open for a whole commit interval: exactly_once refuses a timeout below `commitIntervalMs`.',
  },
  maxRequestSize: {
    type: 'a positive integer (bytes)',
    default: 1_048_576,
    check: positiveInt,
    meaning:
      "Java's `max.request.size`: a sink record larger than this (serialized, with Kafka's overhead) is a RecordTooLargeError for the production exception handler.",
  },
} satisfies { [K in keyof Required<ProducerConfig>]: ConfigKey };

const CONSUMER_KEYS = {
  isolationLevel: {
    type: "'read_committed' or 'read_uncommitted'",
    defaultText: '`read_committed` under exactly_once, else `read_uncommitted`',
    check: oneOf('read_committed', 'read_uncommitted'),
    meaning: `Which records the consumers read. ${eosOverride} (read_uncommitted).`,
  },
  sessionTimeoutMs: {
    type: 'a positive integer',
    default: 10_000,
    check: positiveInt,
    meaning: 'Consumer group session timeout (ms).',
  },
  heartbeatIntervalMs: {
    type: 'a positive integer',
    default: 1_000,
    check: positiveInt,
    meaning: 'Consumer group heartbeat interval (ms).',
  },
  rebalanceTimeoutMs: {
    type: 'a positive integer',
    default: 30_000,
    check: positiveInt,
    meaning: 'How long the group waits for members to rejoin during a rebalance (ms).',
  },
  maxWaitTimeMs: {
    type: 'a positive integer',
    default: 100,
    check: positiveInt,
    meaning: 'How long a fetch waits on the broker for data (ms).',
  },
} satisfies { [K in keyof Required<ConsumerConfig>]: ConfigKey };

const handler = (where: string, rule: string) => ({
  where: `${where} (config/exception-handler-config.ts)`,
  rule,
});
/** The deserialization and processing handlers take the same answers. */
const LOG_AND_HANDLER = {
  type: "'logAndFail' | 'logAndContinue' | function",
  default: 'logAndFail',
  checkedBy: handler(
    'resolveExceptionHandlers',
    "'logAndFail', 'logAndContinue' or a function (error, context) => 'continue' | 'fail'",
  ),
};

export const CONFIG_KEYS = {
  applicationId: {
    type: 'string',
    defaultText: 'required',
    checkedBy: { where: 'resolveStreamsConfig', rule: 'a string of letters, digits, ".", "_" or "-"' },
    meaning:
      "Kafka Streams' `application.id`: names the consumer group, the internal topics (`<applicationId>-...-changelog`, `-repartition`) and the state directory.",
  },
  brokers: {
    type: 'string[] | string',
    defaultText: 'required',
    checkedBy: {
      where: 'resolveStreamsConfig',
      rule: 'a non-empty list of "host:port" strings, or one comma-separated string',
    },
    meaning: "Kafka Streams' `bootstrap.servers`.",
  },
  clientId: {
    type: 'string',
    defaultText: 'the applicationId',
    check: string,
    meaning: 'Client id of the Kafka clients; thread metrics are labelled `<clientId>-StreamThread-N`.',
  },
  ssl: {
    type: 'object | boolean',
    defaultText: 'unset (plaintext)',
    checkedBy: {
      where: 'resolveSsl (config/security-config.ts)',
      rule: 'true, or an object of TLS options; rejectUnauthorized a boolean',
    },
    meaning:
      'TLS: `true`, or Node TLS options (`{ ca, cert, key, rejectUnauthorized }`), passed to kafkajs. Secret fields print as `[redacted]` in logs, errors and JSON.',
  },
  sasl: {
    type: 'object',
    defaultText: 'unset',
    checkedBy: {
      where: 'resolveSasl (config/security-config.ts)',
      rule: "mechanism one of 'plain', 'scram-sha-256', 'scram-sha-512', 'oauthbearer', 'aws'; username and password for plain/scram; oauthBearerProvider for oauthbearer",
    },
    meaning: 'SASL authentication, passed to kafkajs; the password never appears in an error or a log line.',
  },
  connectionTimeout: {
    type: 'number',
    defaultText: "kafkajs' (1,000)",
    check: positiveInt,
    meaning: 'Time to open a connection (ms), passed to kafkajs.',
  },
  requestTimeout: {
    type: 'number',
    defaultText: "kafkajs' (30,000)",
    check: positiveInt,
    meaning: 'Time to wait for a request (ms), passed to kafkajs.',
  },
  socketFactory: {
    type: 'function (kafkajs socketFactory)',
    defaultText: "kafkajs' (net/tls sockets)",
    check: { rule: 'a function', test: (v) => typeof v === 'function' },
    meaning:
      "kafkajs' socketFactory, passed through: how the app opens every connection (e.g. through a proxy).",
  },
  processingGuarantee: {
    type: "'at_least_once' | 'exactly_once' | 'exactly_once_v2'",
    default: 'at_least_once',
    check: oneOf('at_least_once', 'exactly_once', 'exactly_once_v2'),
    meaning:
      "Kafka Streams' `processing.guarantee`. `exactly_once_v2` commits all tasks of a stream thread in one transaction (KIP-447); `exactly_once` gives each task a transactional producer. Under both, an explicit producer or consumer setting that would weaken the guarantee is refused (see `producer.*`, `consumer.isolationLevel`).",
  },
  commitIntervalMs: {
    type: 'number',
    defaultText: '30,000 (at_least_once), 100 (exactly_once, exactly_once_v2)',
    check: positiveInt,
    meaning:
      "Kafka Streams' `commit.interval.ms`: how often tasks commit. Short under exactly_once to keep transactions small and output latency low.",
  },
  stateDir: {
    type: 'string',
    defaultText: '`<os tmpdir>/kstreams`',
    check: string,
    meaning:
      "Kafka Streams' `state.dir`: where the state stores live (`<stateDir>/<applicationId>/<task>`). Checked to be a writable directory when the app starts.",
  },
  defaultKeySerde: {
    type: 'Serde',
    defaultText: 'unset: every source and sink names its serdes',
    check: SERDE,
    meaning: "Kafka Streams' `default.key.serde`.",
  },
  defaultValueSerde: {
    type: 'Serde',
    defaultText: 'unset: every source and sink names its serdes',
    check: SERDE,
    meaning: "Kafka Streams' `default.value.serde`.",
  },
  logger: {
    type: 'pino logger | level',
    default: 'info',
    check: {
      rule: `a pino logger, or a level: ${LOG_LEVELS.join(', ')}`,
      test: (v) =>
        (typeof v === 'string' && LOG_LEVELS.includes(v)) ||
        (typeof v === 'object' && v !== null && typeof (v as { child?: unknown }).child === 'function'),
    },
    meaning: 'A pino logger to log through, or the level of the one kstreams makes (named `kstreams`).',
  },
  deserializationExceptionHandler: {
    ...LOG_AND_HANDLER,
    meaning:
      "Kafka Streams' `deserialization.exception.handler`: what a record that cannot be deserialized does. With `errors.deadLetterQueueTopic`, a skipped record goes there.",
  },
  processingExceptionHandler: {
    ...LOG_AND_HANDLER,
    meaning:
      "Kafka Streams' `processing.exception.handler` (KIP-1033): what an exception in a processor does.",
  },
  productionExceptionHandler: {
    type: "'fail' | 'continue' | function",
    default: 'fail',
    checkedBy: handler(
      'resolveExceptionHandlers',
      "'fail', 'continue' or a function (error, context) => 'continue' | 'fail' | 'retry'",
    ),
    meaning:
      "Kafka Streams' `production.exception.handler`: what a record a sink cannot write (serialization, too large, refused by the broker, timed out) does; 'fail' retries retriable errors, as Java's default.",
  },
  errors: {
    type: 'object',
    defaultText: 'unset',
    checkedBy: handler('resolveExceptionHandlers', 'an object with the key below'),
    meaning: "Kafka Streams' `errors.*` settings.",
    keys: {
      deadLetterQueueTopic: {
        type: 'string',
        defaultText: 'unset: no dead-letter queue',
        checkedBy: handler('resolveExceptionHandlers', 'a topic name (letters, digits, ".", "_", "-")'),
        meaning:
          "KIP-1034's `errors.dead.letter.queue.topic.name`: a record that a handler answers 'continue' for is sent there (its source bytes, with `__streams.errors.*` headers). The topic must exist.",
      },
    },
  },
  defaultTimestampExtractor: {
    type: 'TimestampExtractor | function',
    defaultText: "FailOnInvalidTimestamp (the record's Kafka timestamp; a negative one fails the task)",
    checkedBy: {
      where: 'resolveSourceDefaults (config/source-config.ts)',
      rule: 'an object with extract(record, partitionTime), a class of one, or a function (record, partitionTime) => number',
    },
    meaning:
      "Kafka Streams' `default.timestamp.extractor`: the timestamp of every source's records, unless its `Consumed` sets `timestampExtractor`. Built-ins: `FailOnInvalidTimestamp`, `LogAndSkipOnInvalidTimestamp`, `UsePartitionTimeOnInvalidTimestamp`, `WallclockTimestampExtractor`.",
  },
  autoOffsetReset: {
    type: "'earliest' | 'latest' | 'none' | AutoOffsetReset",
    defaultText: "'earliest'",
    checkedBy: {
      where: 'resolveSourceDefaults (config/source-config.ts)',
      rule: "'earliest', 'latest', 'none' or AutoOffsetReset.byDuration(ms) (an integer >= 0)",
    },
    meaning:
      "Kafka Streams' `auto.offset.reset` (KIP-1106): where a source starts a partition the application's group has no committed offset for. 'none' fails the task. A source's `Consumed` `offsetResetPolicy` wins; repartition topics always start at the earliest offset.",
  },
  applicationServer: {
    type: "'host:port'",
    defaultText: 'unset: no interactive queries across instances',
    check: { rule: 'host:port', test: (v) => typeof v === 'string' && /^[^:\s]+:\d+$/.test(v) },
    meaning: "Kafka Streams' `application.server`: where this instance answers interactive queries.",
  },
  groupInstanceId: {
    type: 'a string of letters, digits, ".", "_" or "-" (at most 249)',
    defaultText: 'unset: a dynamic member',
    check: {
      rule: 'letters, digits, ".", "_" or "-", 1 to 249 of them',
      test: (v) => typeof v === 'string' && /^[a-zA-Z0-9._-]{1,249}$/.test(v),
    },
    meaning:
      "Kafka's `group.instance.id` (KIP-345, static membership): an instance restarted with the same id within `consumer.sessionTimeoutMs` gets its tasks back without a rebalance, and `close()` does not leave the group unless `close({ leaveGroup: true })`. Each instance needs its own (e.g. the host or pod name); a second live instance with the same id is fenced and stops.",
  },
  numStandbyReplicas: {
    type: 'an integer >= 0',
    default: 0,
    check: atLeast(0),
    meaning:
      "Kafka Streams' `num.standby.replicas`: for each stateful task, that many standby tasks on other instances (never two copies on one instance) follow its changelogs (read_committed) into local stores, so that the task fails over with only the changelog tail to restore, and interactive queries with `enableStaleStores` can read them. Above 0 the leader runs KIP-441's high-availability assignor (acceptableRecoveryLag, maxWarmupReplicas, probingRebalanceIntervalMs); every instance of the application needs the same value.",
  },
  acceptableRecoveryLag: {
    type: 'a number of records >= 0',
    default: 10_000,
    defaultText: '10,000',
    check: atLeast(0),
    meaning: `Kafka Streams' \`acceptable.recovery.lag\` (KIP-441): an instance at most this many changelog records behind on a task counts as caught up and may get it as active; a task whose balanced target is further behind stays where its state is caught up while a warm-up replica restores on the target. ${withStandbys}`,
  },
  maxWarmupReplicas: {
    type: 'an integer >= 1',
    default: 2,
    check: atLeast(1),
    meaning: `Kafka Streams' \`max.warmup.replicas\`: how many warm-up replicas (standbys beyond numStandbyReplicas, restoring a task before it moves) the whole assignment has at once; bounds the extra changelog reads. ${withStandbys}`,
  },
  probingRebalanceIntervalMs: {
    type: 'a number of ms >= 60,000',
    default: 600_000,
    defaultText: '10 minutes (600,000)',
    check: atLeast(60_000),
    meaning: `Kafka Streams' \`probing.rebalance.interval.ms\`: while warm-up replicas restore, the group rebalances this often to move the tasks whose warm-ups have caught up. ${withStandbys}`,
  },
  replicationFactor: {
    type: 'number',
    default: -1,
    check: orValues(positiveInt, -1),
    meaning: "Kafka Streams' `replication.factor` of the internal topics; -1 takes the broker's default.",
  },
  maxUncommittedBytes: {
    type: 'number',
    default: 64 * 1024 * 1024,
    defaultText: '64 MiB (67,108,864)',
    check: positiveInt,
    meaning:
      "Once the uncommitted writes in the store buffers of all this instance's tasks together pass this many bytes (an estimated ~360 bytes of overhead per entry included), the tasks commit early, so memory stays bounded whatever the commit interval (Kafka Streams' KIP-892 `statestore.uncommitted.max.bytes`).",
  },
  statestoreCacheMaxBytes: {
    type: 'a number of bytes >= 0 (0: no record cache)',
    default: DEFAULT_CACHE_MAX_BYTES,
    defaultText: '10 MiB (10,485,760)',
    check: orValues(positiveInt, 0),
    meaning:
      "Kafka Streams' `statestore.cache.max.bytes`: the record cache of the DSL's stores (aggregations, windowed aggregations, tables materialized by name), for all tasks of the instance. Updates of a key between two commits go downstream and to the changelog once, with the latest value; when the cache is full, the store being written flushes early. 0 forwards every update.",
  },
  dslStoreFormat: {
    type: "'DEFAULT' or 'HEADERS'",
    default: 'DEFAULT',
    check: oneOf('DEFAULT', 'HEADERS'),
    meaning:
      "Kafka Streams' `dsl.store.format` (KIP-1285, 4.3-4.4): `'HEADERS'` gives the DSL's stores (tables, `count`/`reduce`/`aggregate`, materialized table operators, foreign-key join stores, windowed, sliding and session aggregations, stream-stream joins) Kafka Streams' headers-aware formats (`TimestampedKeyValueStoreWithHeaders`, `TimestampedWindowStoreWithHeaders`, `SessionStoreWithHeaders`: each value stored with its headers, the headers also on its changelog records). As in Kafka Streams 4.4 aggregations store empty headers (an aggregation's output carries the headers of the record that updated it, in both formats) and a stream-stream join each record's headers. Switching it on an existing app needs its local state removed (`app.cleanUp()` before `start()`; the changelog is the same, so the stores restore from it): a LevelDB store written in the other format refuses to open (`StoreFormatError`) rather than be misread. See docs/state-and-interactive-queries.md.",
  },
  taskStallTimeoutMs: {
    type: 'number (0 to turn the watchdog off)',
    defaultText: '60,000, or 3 commit intervals if that is longer',
    check: orValues(positiveInt, 0),
    meaning:
      'A task whose input is behind but whose position and committed offsets have not moved for this long is logged at error and recreated from its committed offsets; 0 turns the watchdog off. Must be at least twice `commitIntervalMs`: between commits a caught-up task legitimately stands still for a whole interval.',
  },
  metadataMaxAgeMs: {
    type: 'number',
    default: 300_000,
    check: positiveInt,
    meaning:
      "Kafka Streams' `metadata.max.age.ms`, for pattern sources (`builder.stream(/orders-.*/)`): how often the app lists the cluster's topics; a new topic that matches a pattern joins the app at the next refresh (its stream thread is replaced, which commits, closes and reopens the tasks with their stores). Apps without pattern sources never list.",
  },
  maxTaskIdleMs: {
    type: 'a number of ms >= 0, or -1 to never wait',
    default: 0,
    check: orValues(positiveInt, 0, -1),
    meaning:
      "Kafka Streams' `max.task.idle.ms`: how long a task with several input partitions waits for one that has no data before it processes the others (timestamp order across them is only as good as what is buffered). A partition whose fetch lag is above 0 or unknown (data on the broker) is waited for without a deadline; one that is caught up (lag 0) this long, then the others are processed (enforced processing). 0: wait only for data on the broker; -1: never wait.",
  },
  producer: {
    type: 'object',
    defaultText: 'see its keys',
    checkedBy: { where: 'resolveStreamsConfig', rule: 'an object of the keys below' },
    meaning: 'Producer settings that exactly_once depends on; set them only to override the defaults.',
    keys: PRODUCER_KEYS,
  },
  consumer: {
    type: 'object',
    defaultText: 'see its keys',
    checkedBy: { where: 'resolveStreamsConfig', rule: 'an object of the keys below' },
    meaning: 'Consumer settings.',
    keys: CONSUMER_KEYS,
  },
  metrics: {
    type: "{ recordingLevel: 'info' | 'debug' | 'off' }",
    defaultText: 'see its key',
    checkedBy: { where: 'resolveStreamsConfig', rule: 'an object of the key below' },
    meaning: 'Metrics settings.',
    keys: {
      recordingLevel: {
        type: "'info', 'debug' (adds state store metrics) or 'off'",
        default: 'info',
        check: oneOf('info', 'debug', 'off'),
        meaning:
          "Kafka Streams' `metrics.recording.level`: `info` records thread, task, lag, restore and transaction metrics; `debug` adds the state stores'; `off` records nothing (benchmarks).",
      },
    },
  },
  heapGrowingPercent: {
    type: 'an integer >= 0 (0: V8 chooses)',
    // Measured in bench/ (docs/benchmarks.md, Memory): the word count's peak RSS 281-324 -> 185-216 MB,
    // the windowed count's 495 -> 256-266 MB.
    default: 50,
    check: orValues(positiveInt, 0),
    meaning:
      "V8's `--heap-growing-percent`, set for the process when the app starts: a full collection runs once the old generation is (1 + p / 100) times what the last one left alive. V8's own choice goes up to 4x for a program that promotes as steadily as a stream processor, which then holds four times its live data. 0 leaves V8's choice (in the benchmarks up to ~30% less CPU per record, for 1.5-1.9x the peak RSS); node's own --heap-growing-percent wins. One value per process: of several apps in one process, the last one started sets it.",
  },
} satisfies { [K in keyof Required<StreamsConfig>]: ConfigKey };

/** Keys of earlier versions, with what replaced them. */
export const REMOVED_KEYS: Readonly<Record<string, string>> = {
  experimentalTransactionPerThread:
    "processingGuarantee 'exactly_once_v2' runs one transaction per stream thread now; remove the key " +
    "(or use 'exactly_once' for one transaction per task)",
};

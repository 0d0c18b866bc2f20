/**
 * Kafka Streams for TypeScript: the DSL (`StreamsBuilder`), the Processor API (`Topology`), serdes, stores and
 * the runtime (`KafkaStreams`). Guides: the docs pages; every config key: the configuration reference.
 *
 * @module @kstreams/core
 */
export type { ErrorsConfig } from './config/exception-handler-config.ts';
// The ssl/sasl checks and the refusal codes, for tools that build their own clients (the CLI).
export { resolveSasl, resolveSsl } from './config/security-config.ts';
export type {
  ConsumerConfig,
  MetricsRecordingLevel,
  ProcessingGuarantee,
  ProducerConfig,
  StreamsConfig,
} from './config/streams-config.ts';
export {
  type AclResourceType,
  AsyncTimeoutError,
  AuthenticationError,
  AuthorizationError,
  BrokerUnreachableError,
  ConfigError,
  DeserializationError,
  IllegalStateError,
  ProcessingError,
  ProductionError,
  RecordSendError,
  RecordTooLargeError,
  SerdeError,
  SerializationError,
  StateDirectoryLockedError,
  StreamsError,
  TimestampExtractorError,
  TopologyError,
} from './errors.ts';
export { authorizationCode } from './kafka/authorization.ts';
export type { BrokerConnectivitySnapshot, BrokerOutage } from './kafka/broker-connectivity.ts';
export { AuthorizationRefusals } from './kafka/refusals.ts';
export * from './kstream/index.ts';
export type {
  AsyncAction,
  AsyncPredicate,
  AsyncValueMapper,
} from './kstream/internals/async-operators.ts';
export type {
  AsyncCall,
  AsyncOptions,
  AsyncOrdering,
  AsyncProcessor,
  AsyncProcessorSupplier,
} from './processor/async-processor.ts';
export { AutoOffsetReset, type AutoOffsetResetLike } from './processor/auto-offset-reset.ts';
export type {
  DeserializationExceptionHandler,
  DeserializationExceptionHandlerConfig,
  ErrorHandlerContext,
  HandlerResponse,
  ProcessingExceptionHandler,
  ProcessingExceptionHandlerConfig,
  ProducedRecord,
  ProductionExceptionHandler,
  ProductionExceptionHandlerConfig,
  ProductionHandlerResponse,
} from './processor/exception-handlers.ts';
export type {
  Cancellable,
  FixedKeyProcessor,
  FixedKeyProcessorContext,
  FixedKeyProcessorSupplier,
  Processor,
  ProcessorContext,
  ProcessorSupplier,
  PunctuationType,
  Punctuator,
  RecordMetadata,
} from './processor/processor.ts';
export { ContextualProcessor } from './processor/processor.ts';
export { FixedKeyRecord, type Headers, Record } from './processor/record.ts';
export type {
  PartitionerResult,
  StreamPartitioner,
  StreamPartitionerFunction,
} from './processor/stream-partitioner.ts';
export type { TaskId } from './processor/task-id.ts';
export {
  type ConsumerRecord,
  ExtractRecordMetadataTimestamp,
  FailOnInvalidTimestamp,
  LogAndSkipOnInvalidTimestamp,
  type TimestampExtractor,
  type TimestampExtractorLike,
  UsePartitionTimeOnInvalidTimestamp,
  WallclockTimestampExtractor,
} from './processor/timestamp-extractor.ts';
export type { RecordContext, TopicNameExtractor } from './processor/topic-name-extractor.ts';
export { type SinkOptions, type SourceOptions, Topology } from './processor/topology.ts';
export type {
  NodeDescription,
  SubtopologyDescription,
  TopologyDescription,
} from './processor/topology-description.ts';
// IQv2: typed queries with positions (`app.query(StateQueryRequest.inStore(name).withQuery(q))`).
export {
  type FailureReason,
  isPermitted,
  KeyQuery,
  MultiVersionedKeyQuery,
  Position,
  PositionBound,
  type PositionJson,
  type Query,
  QueryResult,
  RangeQuery,
  type ResultOrder,
  StateQueryRequest,
  StateQueryResult,
  TimestampedKeyQuery,
  TimestampedRangeQuery,
  VersionedKeyQuery,
  WindowKeyQuery,
  WindowRangeQuery,
} from './query/index.ts';
export * from './runtime/index.ts';
export type { Schema, Serde, SerdeType } from './serdes/serde.ts';
export { Serdes } from './serdes/serdes.ts';
export { WindowedSerdes } from './serdes/windowed-serdes.ts';
export type {
  DslStoreFormat,
  KeyValueStore,
  ReadOnlySessionStore,
  ReadOnlyWindowStore,
  SessionEntry,
  SessionStore,
  SessionWindowedKey,
  StateStore,
  StoreBuilder,
  ValueAndTimestamp,
  ValueTimestampHeaders,
  VersionedBytesStoreSupplier,
  VersionedKeyValueStore,
  VersionedRecord,
  Window,
  Windowed,
  WindowStore,
  WindowStoreEntry,
  WindowStoreOptions,
} from './state/index.ts';
export { PUT_RETURN_CODE_NOT_PUT, PUT_RETURN_CODE_VALID_TO_UNDEFINED, Stores } from './state/index.ts';

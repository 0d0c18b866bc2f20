// IQv2 (Kafka Streams' org.apache.kafka.streams.query): typed queries, their results and positions.
export { isPermitted, Position, PositionBound, type PositionJson } from './position.ts';
export {
  KeyQuery,
  MultiVersionedKeyQuery,
  type Query,
  RangeQuery,
  type ResultOrder,
  TimestampedKeyQuery,
  TimestampedRangeQuery,
  VersionedKeyQuery,
  WindowKeyQuery,
  WindowRangeQuery,
} from './queries.ts';
export { type FailureReason, QueryResult, StateQueryRequest, StateQueryResult } from './results.ts';

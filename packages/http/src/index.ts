/**
 * A fastify plugin for a kstreams app: /health, /metrics (Prometheus), /status, the status page and
 * store queries forwarded to the instance that owns a key.
 *
 * @module @kstreams/http
 */
export {
  type AnswerHere,
  FORWARDED_HEADER,
  type KeyLookup,
  ownedHere,
  runningApp,
  toJson,
} from './forwarding.ts';
export {
  type BrokerHealth,
  type BrokerOutageJson,
  brokerHealth,
  degradedReason,
  liveness,
  readiness,
} from './health.ts';
export {
  type KStreamsPluginOptions,
  kstreamsPlugin,
  type StreamsHttpServer,
  startHttpServer,
} from './plugin.ts';
export { parseRange, parseTime, type StoreQueryOptions, sessionsOf, windowsOf } from './queries.ts';
export { registerStateQueries, type StateQueryResponse } from './state-queries.ts';
export type { PartitionResultJson, StateQueryBody } from './state-query-json.ts';
export { type InstanceStatus, instanceStatus } from './status.ts';
export { allInstances, type InstanceEntry } from './status-page.ts';

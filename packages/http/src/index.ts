export { liveness, readiness } from './health.ts';
export {
  type KStreamsPluginOptions,
  kstreamsPlugin,
  type StreamsHttpServer,
  startHttpServer,
} from './plugin.ts';
export { FORWARDED_HEADER, type StoreQueryOptions } from './queries.ts';
export { type InstanceStatus, instanceStatus } from './status.ts';
export { allInstances, type InstanceEntry } from './status-page.ts';

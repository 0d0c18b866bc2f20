export { liveness, readiness } from './health.ts';
export {
  type KStreamsPluginOptions,
  kstreamsPlugin,
  type StreamsHttpServer,
  startHttpServer,
} from './plugin.ts';
export { type InstanceStatus, instanceStatus } from './status.ts';

// The fastify plugin: /health (readiness), /health/live, /metrics (Prometheus text), /status
// (JSON), the status page and store queries for one KafkaStreams app. Register it in your server,
// or start one with startHttpServer.
import type { KafkaStreams } from '@kstreams/core';
import Fastify, { type FastifyInstance, type FastifyPluginAsync } from 'fastify';
import { brokerHealth, degradedReason, liveness, readiness } from './health.ts';
import { registerStoreQueries, type StoreQueryOptions } from './queries.ts';
import { registerStateQueries } from './state-queries.ts';
import { instanceStatus } from './status.ts';
import { registerStatusPage } from './status-page.ts';

export interface KStreamsPluginOptions {
  /** The app, or a getter for one that is created later (a retried start builds a new app). */
  app: KafkaStreams | (() => KafkaStreams | undefined);
  /** Key serdes and parsers of the stores queried at /stores/:store/{keys,windows,sessions}/:key. */
  stores?: Record<string, StoreQueryOptions>;
}

function resolve(app: KStreamsPluginOptions['app']): KafkaStreams | undefined {
  return typeof app === 'function' ? app() : app;
}

export const kstreamsPlugin: FastifyPluginAsync<KStreamsPluginOptions> = async (fastify, options) => {
  const current = () => resolve(options.app);
  fastify.get('/health', async (_req, reply) => {
    const app = current();
    const state = app?.state ?? 'CREATED';
    const r = readiness(state);
    const broker = app && brokerHealth(app.brokerConnectivity());
    const reason = broker && degradedReason(broker);
    const ready = r.ready && reason === undefined;
    reply.code(ready ? 200 : 503);
    if (!ready) reply.header('retry-after', '1');
    return {
      status: state,
      ready,
      ...(reason !== undefined && { degraded: true, reason }),
      ...(app?.error && { error: app.error.message }),
      // The outage going on, or the last one: what happened while nobody looked.
      ...(broker && (broker.outage || broker.lastOutage) && { broker }),
    };
  });
  fastify.get('/health/live', async (_req, reply) => {
    const state = current()?.state ?? 'CREATED';
    const r = liveness(state);
    reply.code(r.status);
    return { status: state, live: r.live };
  });
  fastify.get('/metrics', async (_req, reply) => {
    const app = current();
    if (!app) return reply.code(503).send({ error: 'starting', message: 'the app is not created yet' });
    reply.header('content-type', app.metricsRegistry.contentType);
    return app.metricsRegistry.metrics();
  });
  fastify.get('/status', async (_req, reply) => {
    const app = current();
    if (!app) return reply.code(503).send({ error: 'starting', message: 'the app is not created yet' });
    return instanceStatus(app);
  });
  registerStatusPage(fastify, current);
  registerStoreQueries(fastify, current, options.stores);
  registerStateQueries(fastify, current, options.stores);
};

export interface StreamsHttpServer {
  readonly fastify: FastifyInstance;
  readonly port: number;
  close(): Promise<void>;
}

/** A fastify server with the plugin, listening on `port` (0: a free one). */
export async function startHttpServer(
  options: KStreamsPluginOptions & { port: number; host?: string },
): Promise<StreamsHttpServer> {
  const fastify = Fastify({ forceCloseConnections: true });
  await fastify.register(kstreamsPlugin, {
    app: options.app,
    ...(options.stores !== undefined && { stores: options.stores }),
  });
  await fastify.listen({ port: options.port, host: options.host ?? '0.0.0.0' });
  const address = fastify.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : options.port;
  return { fastify, port, close: () => fastify.close() };
}

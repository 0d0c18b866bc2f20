import type { KafkaStreams } from '@kstreams/core';
import { kstreamsPlugin, type StoreQueryOptions } from '@kstreams/http';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';

/**
 * An example's fastify server with the @kstreams/http plugin: a throw in a route is a logged 500
 * with its message, an unknown URL a 404 that lists `routes`; both JSON `{ error, message }`.
 */
export async function exampleServer(
  app: () => KafkaStreams | undefined,
  logger: Logger,
  routes: string,
  stores?: Record<string, StoreQueryOptions>,
): Promise<FastifyInstance> {
  const fastify = Fastify({ forceCloseConnections: true });
  fastify.setErrorHandler((error, req, reply) => {
    logger.error({ err: error, url: req.url }, 'query failed');
    return reply.code(500).send({ error: 'internal_error', message: (error as Error).message });
  });
  fastify.setNotFoundHandler((req, reply) =>
    reply.code(404).send({
      error: 'not_found',
      message: `no route for ${req.url.split('?')[0]}; the routes are ${routes}`,
    }),
  );
  await fastify.register(kstreamsPlugin, { app, ...(stores !== undefined && { stores }) });
  return fastify;
}

import type { KafkaStreams } from '@kstreams/core';
import { type StoreQueryOptions } from '@kstreams/http';
import { type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
/**
 * An example's fastify server with the @kstreams/http plugin: a throw in a route is a logged 500
 * with its message, an unknown URL a 404 that lists `routes`; both JSON `{ error, message }`.
 */
export declare function exampleServer(app: () => KafkaStreams | undefined, logger: Logger, routes: string, stores?: Record<string, StoreQueryOptions>): Promise<FastifyInstance>;

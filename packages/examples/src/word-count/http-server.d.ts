import { type KafkaStreams } from '@kstreams/core';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { type HttpServer } from '../common/service.ts';
import { type WordCountQueries } from './queries.ts';
export declare const DEFAULT_TOP = 10;
/** Parses `top`; a string means a 400 with that explanation. */
export declare function parseTop(raw: string | undefined): number | string;
/** The server with its routes, not yet listening (tests call `inject`). */
export declare function buildQueryServer(queries: () => WordCountQueries | undefined, app: () => KafkaStreams | undefined, logger: Logger): Promise<FastifyInstance>;
export type QueryServer = HttpServer;
/** Listens on `port` (0: a free one); a throw in a route becomes a 500 with its message. */
export declare function startQueryServer(port: number, queries: () => WordCountQueries | undefined, app: () => KafkaStreams | undefined, logger: Logger): Promise<QueryServer>;

import { KafkaStreams, type StreamsConfig, type Topology } from '@kstreams/core';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { AppOptions } from './options.ts';
export interface HttpServer {
    readonly fastify: FastifyInstance;
    readonly port: number;
    close(): Promise<void>;
}
/** Listens on `port` (0: a free one) on every interface. */
export declare function listen(fastify: FastifyInstance, port: number): Promise<HttpServer>;
export interface ServiceSpec<Q> {
    /** For the log: 'word-count', 'page-views'. */
    name: string;
    topology: Topology;
    /**
     * The topics the app creates when missing, the first one its main input (the partition count the
     * queries get). Default: the options' input and output.
     */
    topics?: readonly string[];
    /** Settings of the app's own beyond what the flags set (e.g. a join's maxTaskIdleMs). */
    streamsConfig?: Pick<StreamsConfig, 'maxTaskIdleMs'>;
    /** The server with its routes; it asks the getters on each request, as the app comes later. */
    startServer(port: number, queries: () => Q | undefined, app: () => KafkaStreams | undefined): Promise<HttpServer>;
    /** The app's query helper, if it has one, given the instance's `host:port` and the input's partition count. */
    queries?(app: KafkaStreams, where: {
        self: string;
        partitions: number;
    }): Q;
}
export interface RunningService {
    readonly app: KafkaStreams;
    readonly server: HttpServer;
    /** `host:port` this instance answers queries at. */
    readonly applicationServer: string;
    /** Commits, closes the stores, leaves the group, then stops the server. */
    close(timeoutMs?: number): Promise<boolean>;
}
export declare function startService<Q>(options: AppOptions, logger: Logger, spec: ServiceSpec<Q>): Promise<RunningService>;

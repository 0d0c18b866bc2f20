// Starts an example app as a service: its topics, its HTTP server (listening before the app exists,
// so that `--port 0` can tell the app its real port) and the KafkaStreams instance.
import { BrokerUnreachableError, KafkaStreams, type StreamsConfig, type Topology } from '@kstreams/core';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { exampleKafka } from './kafka.ts';
import type { AppOptions } from './options.ts';
import { ensureTopics, partitionCounts } from './topics.ts';

export interface HttpServer {
  readonly fastify: FastifyInstance;
  readonly port: number;
  close(): Promise<void>;
}

/** Listens on `port` (0: a free one) on every interface. */
export async function listen(fastify: FastifyInstance, port: number): Promise<HttpServer> {
  await fastify.listen({ port, host: '0.0.0.0' });
  const address = fastify.server.address();
  return {
    fastify,
    port: typeof address === 'object' && address !== null ? address.port : port,
    close: () => fastify.close(),
  };
}

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
  startServer(
    port: number,
    queries: () => Q | undefined,
    app: () => KafkaStreams | undefined,
  ): Promise<HttpServer>;
  /** The app's query helper, if it has one, given the instance's `host:port` and the input's partition count. */
  queries?(app: KafkaStreams, where: { self: string; partitions: number }): Q;
}

export interface RunningService {
  readonly app: KafkaStreams;
  readonly server: HttpServer;
  /** `host:port` this instance answers queries at. */
  readonly applicationServer: string;
  /** Commits, closes the stores, leaves the group, then stops the server. */
  close(timeoutMs?: number): Promise<boolean>;
}

/** Creates the topics if missing; returns the first one's partition count. */
async function prepareTopics(
  options: AppOptions,
  topics: readonly string[],
  logger: Logger,
): Promise<number> {
  const admin = exampleKafka(options.brokers, `${options.applicationId}-setup`, logger).admin();
  await admin.connect().catch((error: unknown) => {
    throw BrokerUnreachableError.from(error, options.brokers) ?? error;
  });
  try {
    const created = await ensureTopics(admin, topics, options.partitions);
    if (created.length > 0)
      logger.info({ topics: created, partitions: options.partitions }, 'created topics');
    return (await partitionCounts(admin, [topics[0]!])).get(topics[0]!)!;
  } finally {
    await admin.disconnect();
  }
}

export async function startService<Q>(
  options: AppOptions,
  logger: Logger,
  spec: ServiceSpec<Q>,
): Promise<RunningService> {
  let queries: Q | undefined;
  let current: KafkaStreams | undefined;
  const server = await spec.startServer(
    options.port,
    () => queries,
    () => current,
  );
  const applicationServer = `${options.host}:${server.port}`;
  const newApp = () =>
    new KafkaStreams(spec.topology, {
      applicationId: options.applicationId,
      brokers: options.brokers,
      processingGuarantee: options.guarantee,
      applicationServer,
      logger,
      ...spec.streamsConfig,
      ...(options.stateDir !== undefined && { stateDir: options.stateDir }),
      ...(options.commitIntervalMs !== undefined && { commitIntervalMs: options.commitIntervalMs }),
      ...(options.groupInstanceId !== undefined && { groupInstanceId: options.groupInstanceId }),
      ...(options.numStandbyReplicas !== undefined && { numStandbyReplicas: options.numStandbyReplicas }),
      ...(options.sessionTimeoutMs !== undefined && {
        consumer: { sessionTimeoutMs: options.sessionTimeoutMs },
      }),
    });
  let app: KafkaStreams;
  let partitions: number;
  try {
    // The config and the state directory are checked (ConfigError) before any topic is created.
    app = newApp();
    partitions = await prepareTopics(options, spec.topics ?? [options.input, options.output], logger);
  } catch (error) {
    await server.close();
    throw error;
  }
  current = app;
  queries = spec.queries?.(app, { self: applicationServer, partitions });
  // core's start() waits for topics just created (their metadata may lag the create for a moment).
  try {
    await app.start();
  } catch (error) {
    await server.close();
    throw error;
  }
  logger.info(
    {
      input: options.input,
      output: options.output,
      guarantee: options.guarantee,
      queries: `http://${applicationServer}`,
    },
    `${spec.name} started`,
  );
  return {
    app,
    server,
    applicationServer,
    async close(timeoutMs = 30_000) {
      const closed = await app.close({ timeoutMs });
      await server.close();
      return closed;
    },
  };
}

// Starts the word-count app: its topics, the query server, and the KafkaStreams instance.
import { BrokerUnreachableError, KafkaStreams } from '@kstreams/core';
import type { Logger } from 'pino';
import { type QueryServer, startQueryServer } from './http-server.ts';
import { exampleKafka } from './kafka.ts';
import type { WordCountOptions } from './options.ts';
import { WordCountQueries } from './queries.ts';
import { ensureTopics, partitionCounts } from './topics.ts';
import { wordCountTopology } from './topology.ts';

const START_ATTEMPTS = 3;

export interface RunningWordCount {
  readonly app: KafkaStreams;
  readonly server: QueryServer;
  /** `host:port` this instance answers queries at. */
  readonly applicationServer: string;
  /** Commits, closes the stores, leaves the group, then stops the query server. */
  close(timeoutMs?: number): Promise<boolean>;
}

/** Creates the input and output topics if missing; returns the input's partition count. */
async function prepareTopics(options: WordCountOptions, logger: Logger): Promise<number> {
  const admin = exampleKafka(options.brokers, `${options.applicationId}-setup`, logger).admin();
  await admin.connect().catch((error: unknown) => {
    throw BrokerUnreachableError.from(error, options.brokers) ?? error;
  });
  try {
    const created = await ensureTopics(admin, [options.input, options.output], options.partitions);
    if (created.length > 0)
      logger.info({ topics: created, partitions: options.partitions }, 'created topics');
    return (await partitionCounts(admin, [options.input])).get(options.input)!;
  } finally {
    await admin.disconnect();
  }
}

export async function startWordCount(options: WordCountOptions, logger: Logger): Promise<RunningWordCount> {
  // The server listens before the app exists so that `--port 0` can tell the app its real port.
  let queries: WordCountQueries | undefined;
  let current: KafkaStreams | undefined;
  const server = await startQueryServer(
    options.port,
    () => queries,
    () => current,
    logger,
  );
  const applicationServer = `${options.host}:${server.port}`;
  const topology = wordCountTopology(options.input, options.output);
  const newApp = () =>
    new KafkaStreams(topology, {
      applicationId: options.applicationId,
      brokers: options.brokers,
      processingGuarantee: options.guarantee,
      applicationServer,
      logger,
      ...(options.stateDir !== undefined && { stateDir: options.stateDir }),
      ...(options.commitIntervalMs !== undefined && { commitIntervalMs: options.commitIntervalMs }),
    });
  let app: KafkaStreams;
  let partitions: number;
  try {
    // The config and the state directory are checked (ConfigError) before any topic is created.
    app = newApp();
    partitions = await prepareTopics(options, logger);
  } catch (error) {
    await server.close();
    throw error;
  }
  current = app;
  queries = new WordCountQueries(app, { self: applicationServer, partitions });
  for (let attempt = 1; ; attempt++) {
    try {
      await app.start();
      break;
    } catch (error) {
      // A broker that has just started can answer a metadata request for a topic it created a
      // moment ago with a retriable "unknown topic" error; a fresh app then starts fine.
      if ((error as { retriable?: boolean }).retriable === true && attempt < START_ATTEMPTS) {
        logger.warn({ err: error, attempt }, 'start failed with a retriable error; starting again');
        await new Promise((r) => setTimeout(r, 500 * attempt));
        app = newApp();
        current = app;
        queries = new WordCountQueries(app, { self: applicationServer, partitions });
        continue;
      }
      await server.close();
      throw error;
    }
  }
  logger.info(
    {
      input: options.input,
      output: options.output,
      guarantee: options.guarantee,
      queries: `http://${applicationServer}`,
    },
    'word-count started',
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

// Starts the word-count app: its topics, the query server, and the KafkaStreams instance.
import type { Logger } from 'pino';
import { type RunningService, startService } from '../common/service.ts';
import { startQueryServer } from './http-server.ts';
import type { WordCountOptions } from './options.ts';
import { WordCountQueries } from './queries.ts';
import { wordCountTopology } from './topology.ts';

export type RunningWordCount = RunningService;

export function startWordCount(options: WordCountOptions, logger: Logger): Promise<RunningWordCount> {
  return startService<WordCountQueries>(options, logger, {
    name: 'word-count',
    topology: wordCountTopology(options.input, options.output),
    startServer: (port, queries, app) => startQueryServer(port, queries, app, logger),
    queries: (app, where) => new WordCountQueries(app, where),
  });
}

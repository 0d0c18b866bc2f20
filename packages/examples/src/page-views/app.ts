// Starts the page-views app: its topics, the HTTP server, and the KafkaStreams instance.
import type { Logger } from 'pino';
import type { AppOptions } from '../common/options.ts';
import { listen, type RunningService, startService } from '../common/service.ts';
import { buildPageViewsServer } from './http-server.ts';
import { pageViewsTopology } from './topology.ts';

export function startPageViews(options: AppOptions, logger: Logger): Promise<RunningService> {
  return startService(options, logger, {
    name: 'page-views',
    topology: pageViewsTopology(options.input, options.output),
    startServer: async (port, _queries, app) => listen(await buildPageViewsServer(app, logger), port),
  });
}

// Starts the enrichment app: its topics, the HTTP server (the @kstreams/http plugin's routes:
// health, metrics, and the customers, products and enriched-orders stores by key), and the
// KafkaStreams instance.
import type { Logger } from 'pino';
import { exampleServer } from '../common/http.ts';
import type { AppOptions } from '../common/options.ts';
import { listen, type RunningService, startService } from '../common/service.ts';
import { enrichmentTopics, enrichmentTopology, MAX_TASK_IDLE_MS } from './topology.ts';

const ROUTES =
  'GET /stores/customers/keys/:id, GET /stores/products/keys/:id, GET /stores/enriched-orders/keys/:id, ' +
  'GET /health, GET /metrics, GET /status, GET /';

export function startEnrichment(options: AppOptions, logger: Logger): Promise<RunningService> {
  const topics = enrichmentTopics(options.input, options.output);
  return startService(options, logger, {
    name: 'enrichment',
    topology: enrichmentTopology(topics),
    streamsConfig: { maxTaskIdleMs: MAX_TASK_IDLE_MS },
    topics: [
      topics.orders,
      topics.payments,
      topics.customers,
      topics.products,
      topics.enriched,
      topics.status,
    ],
    startServer: async (port, _queries, app) => listen(await exampleServer(app, logger, ROUTES), port),
  });
}

// `pnpm --filter @kstreams/examples page-views-feed`: generated page views into the input topic.
import { exampleKafka, feederProducer } from '../common/kafka.ts';
import { createLogger } from '../common/logger.ts';
import { parseOrExit } from '../common/options.ts';
import { simulatedStart } from '../common/simulation.ts';
import { ensureTopics, partitionCounts } from '../common/topics.ts';
import { sendPageViews } from './feeder.ts';
import { generatePageViews } from './generator.ts';
import { feedUsage, parseFeedArgs } from './options.ts';

const options = parseOrExit(
  'page-views-feed',
  () => parseFeedArgs(process.argv.slice(2)),
  feedUsage(),
  '\nRun with --help to see the flags.',
);
const logger = createLogger(process.env.LOG_LEVEL || 'info', { name: 'page-views-feed' });
const kafka = exampleKafka(options.brokers, 'page-views-feeder', logger);
const admin = kafka.admin();
const producer = feederProducer(kafka);
try {
  await admin.connect();
  await ensureTopics(admin, [options.input], options.partitions);
  // The topic may exist already: one end-of-data record for each of its partitions.
  const partitions = (await partitionCounts(admin, [options.input])).get(options.input)!;
  const startMs = simulatedStart(options.hours);
  const data = generatePageViews({ ...options, startMs, partitions });
  await producer.connect();
  await sendPageViews(producer, options.input, [...data.views, ...data.endOfData]);
  logger.info(
    {
      topic: options.input,
      views: data.views.length,
      outOfOrder: data.outOfOrder,
      from: new Date(startMs).toISOString(),
      hours: options.hours,
    },
    'fed the page views and one end-of-data record per partition',
  );
} catch (error) {
  logger.fatal({ err: error }, 'feeding failed');
  process.exitCode = 1;
} finally {
  await producer.disconnect().catch(() => {});
  await admin.disconnect().catch(() => {});
}

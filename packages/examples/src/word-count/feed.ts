// Writes a text file (default: the shipped book) to the input topic, one record per non-empty line.

import { exampleKafka, feederProducer } from '../common/kafka.ts';
import { createLogger } from '../common/logger.ts';
import { parseOrExit } from '../common/options.ts';
import { ensureTopics } from '../common/topics.ts';
import { BOOK_PATH, feedLines, readLines } from './feeder.ts';
import { parseFeedArgs, usage, userPath } from './options.ts';

const options = parseOrExit(
  'feed',
  () => parseFeedArgs(process.argv.slice(2)),
  usage('feed'),
  '\nRun with --help to see the flags.',
);
const file = options.file === undefined ? BOOK_PATH : userPath(options.file);
const logger = createLogger(process.env.LOG_LEVEL || 'info', { name: 'feed' });
const kafka = exampleKafka(options.brokers, 'word-count-feeder', logger);
const admin = kafka.admin();
const producer = feederProducer(kafka);
try {
  await admin.connect();
  const created = await ensureTopics(admin, [options.input], options.partitions);
  if (created.length > 0)
    logger.info({ topic: options.input, partitions: options.partitions }, 'created topic');
  await producer.connect();
  const started = Date.now();
  const sent = await feedLines(producer, options.input, readLines(file));
  logger.info(
    { file, topic: options.input, ...sent, ms: Date.now() - started },
    'fed the text, one record per non-empty line',
  );
} catch (error) {
  logger.fatal({ err: error }, 'feeding failed');
  process.exitCode = 1;
} finally {
  await producer.disconnect().catch(() => {});
  await admin.disconnect().catch(() => {});
}

// The word-count app as a command: flags (or environment variables) in, runs until SIGTERM/SIGINT.

import { BrokerUnreachableError, ConfigError } from '@kstreams/core';
import { startWordCount } from './app.ts';
import { createLogger } from './logger.ts';
import { parseWordCountArgs, UsageError, usage, userPath } from './options.ts';

function parseOrExit() {
  try {
    const parsed = parseWordCountArgs(process.argv.slice(2));
    if (parsed === 'help') {
      console.log(usage('word-count'));
      process.exit(0);
    }
    return parsed;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`word-count: ${error.message}\nRun with --help to see the flags.`);
    process.exit(2);
  }
}

const parsed = parseOrExit();
const options = {
  ...parsed,
  stateDir: parsed.stateDir === undefined ? undefined : userPath(parsed.stateDir),
};
const logger = createLogger(options.logLevel);
let running: Awaited<ReturnType<typeof startWordCount>>;
try {
  running = await startWordCount(options, logger);
} catch (error) {
  // What the user must change, without a stack: a bad setting (exit 2, as a bad flag) or brokers
  // that do not answer.
  if (error instanceof ConfigError) {
    console.error(`word-count: ${error.message.replaceAll('"stateDir"', '--state-dir (STATE_DIR)')}`);
    process.exit(2);
  }
  if (error instanceof BrokerUnreachableError) {
    console.error(
      `word-count: ${error.message.replace('set the "brokers" setting', 'set --brokers or KAFKA_BROKERS')} ` +
        '(npm run kafka -- start runs a local one at 127.0.0.1:9092).',
    );
    process.exit(1);
  }
  logger.fatal({ err: error }, 'word-count could not start');
  process.exit(1);
}

let stopping = false;
async function stop(signal: string) {
  if (stopping) {
    logger.warn({ signal }, 'second signal: exiting without a clean close');
    process.exit(130);
  }
  stopping = true;
  logger.info({ signal }, 'stopping: committing, closing stores, leaving the group');
  const clean = await running.close();
  logger.info({ clean }, 'word-count stopped');
  process.exit(clean ? 0 : 1);
}
process.on('SIGTERM', () => void stop('SIGTERM'));
process.on('SIGINT', () => void stop('SIGINT'));
running.app.on('error', (error) => {
  logger.fatal({ err: error }, 'word-count failed');
  void running.close().finally(() => process.exit(1));
});

// An example app as a command: flags (or environment variables) in, runs until SIGTERM/SIGINT.
// Bad settings exit 2 with what to change, unreachable brokers exit 1 with one line.
import { BrokerUnreachableError, ConfigError } from '@kstreams/core';
import type { Logger } from 'pino';
import { createLogger } from './logger.ts';
import { type AppOptions, parseOrExit, userPath } from './options.ts';
import type { RunningService } from './service.ts';

export interface ServiceCommand {
  name: string;
  parse(argv: readonly string[]): AppOptions | 'help';
  usage(): string;
  start(options: AppOptions, logger: Logger): Promise<RunningService>;
}

export async function runServiceCommand(command: ServiceCommand): Promise<void> {
  const { name } = command;
  const parsed = parseOrExit(
    name,
    () => command.parse(process.argv.slice(2)),
    command.usage(),
    '\nRun with --help to see the flags.',
  );
  const options = {
    ...parsed,
    stateDir: parsed.stateDir === undefined ? undefined : userPath(parsed.stateDir),
  };
  const logger = createLogger(options.logLevel, { name });
  let running: RunningService;
  try {
    running = await command.start(options, logger);
  } catch (error) {
    // What the user must change, without a stack: a bad setting (exit 2, as a bad flag) or brokers
    // that do not answer.
    if (error instanceof ConfigError) {
      console.error(`${name}: ${error.message.replaceAll('"stateDir"', '--state-dir (STATE_DIR)')}`);
      process.exit(2);
    }
    if (error instanceof BrokerUnreachableError) {
      console.error(
        `${name}: ${error.message.replace('set the "brokers" setting', 'set --brokers or KAFKA_BROKERS')} ` +
          '(npm run kafka -- start runs a local one at 127.0.0.1:9092).',
      );
      process.exit(1);
    }
    logger.fatal({ err: error }, `${name} could not start`);
    process.exit(1);
  }

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting without a clean close');
      process.exit(130);
    }
    stopping = true;
    // A static member (--group-instance-id) keeps its place in the group for the session timeout,
    // so that a rolling restart gets its tasks back without a rebalance.
    logger.info({ signal }, 'stopping: committing, closing stores');
    const clean = await running.close();
    logger.info({ clean }, `${name} stopped`);
    process.exit(clean ? 0 : 1);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  running.app.on('error', (error) => {
    logger.fatal({ err: error }, `${name} failed`);
    void running.close().finally(() => process.exit(1));
  });
}

import { type Logger, type LoggerOptions, pino } from 'pino';
import pretty from 'pino-pretty';

export interface LoggerChoices {
  name?: string;
  tty?: boolean;
  /**
   * Drop kafkajs' per-response error lines (its Connection namespace): kafkajs logs every error
   * response there, also the retriable ones it then retries, such as a coordinator that is still
   * loading on a broker that has just started. Failures still surface as errors of the app.
   */
  quietKafkaResponses?: boolean;
}

/**
 * Pretty, coloured lines for a person at a terminal; one JSON object per line otherwise, for log
 * collectors. The pretty stream runs in this thread (no transport worker) so that the last lines
 * before an exit are not lost.
 */
export function createLogger(level: string, choices: LoggerChoices = {}): Logger {
  const { name = 'word-count', tty = Boolean(process.stdout.isTTY), quietKafkaResponses = false } = choices;
  const options: LoggerOptions = { level, name };
  if (quietKafkaResponses) {
    options.hooks = {
      logMethod(args, method) {
        const first = args[0] as { namespace?: unknown } | undefined;
        if (typeof first === 'object' && first !== null && first.namespace === 'Connection') return;
        method.apply(this, args);
      },
    };
  }
  if (!tty) return pino(options);
  return pino(
    options,
    pretty({ colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', sync: true }),
  );
}

import { type Logger, pino } from 'pino';
import pretty from 'pino-pretty';

/**
 * Pretty, coloured lines for a person at a terminal; one JSON object per line otherwise, for log
 * collectors. The pretty stream runs in this thread (no transport worker) so that the last lines
 * before an exit are not lost.
 */
export function createLogger(
  level: string,
  name = 'word-count',
  tty = Boolean(process.stdout.isTTY),
): Logger {
  if (!tty) return pino({ level, name });
  return pino(
    { level, name },
    pretty({ colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', sync: true }),
  );
}

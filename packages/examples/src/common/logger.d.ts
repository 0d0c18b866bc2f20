import { type Logger } from 'pino';
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
export declare function createLogger(level: string, choices?: LoggerChoices): Logger;

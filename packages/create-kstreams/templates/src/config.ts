import type { ProcessingGuarantee, StreamsConfig } from '@kstreams/core';

export interface AppConfig {
  streams: StreamsConfig;
  inputTopic: string;
  outputTopic: string;
}

/**
 * The service's settings from the environment. The names are Kafka Streams' (KAFKA_BROKERS is its
 * bootstrap.servers: "host:port,host:port"); unset ones take the defaults below or kstreams' own,
 * and KafkaStreams rejects a bad value with a ConfigError that says what to change.
 */
export function configFromEnv(env: NodeJS.ProcessEnv): AppConfig {
  return {
    streams: {
      applicationId: env.APPLICATION_ID || '{{applicationId}}',
      // 127.0.0.1, not localhost: Node may try ::1 first, where a broker on IPv4 only does not answer.
      brokers: env.KAFKA_BROKERS || '127.0.0.1:9092',
      // at_least_once (the default), exactly_once or exactly_once_v2.
      ...(env.PROCESSING_GUARANTEE && {
        processingGuarantee: env.PROCESSING_GUARANTEE as ProcessingGuarantee,
      }),
      // Where the state stores live; keep it on a volume so a restart does not restore from the changelog.
      ...(env.STATE_DIR && { stateDir: env.STATE_DIR }),
    },
    inputTopic: env.INPUT_TOPIC || 'text-input',
    outputTopic: env.OUTPUT_TOPIC || 'word-counts',
  };
}

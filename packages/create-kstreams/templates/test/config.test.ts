import { expect, it } from 'vitest';
import { configFromEnv } from '../src/config.js';

it('reads the settings from the environment', () => {
  const config = configFromEnv({
    KAFKA_BROKERS: 'kafka-1:9092,kafka-2:9092',
    APPLICATION_ID: 'counts-v2',
    INPUT_TOPIC: 'lines',
    OUTPUT_TOPIC: 'counts',
    PROCESSING_GUARANTEE: 'exactly_once_v2',
    STATE_DIR: '/var/lib/app',
  });
  expect(config).toEqual({
    streams: {
      applicationId: 'counts-v2',
      brokers: 'kafka-1:9092,kafka-2:9092',
      processingGuarantee: 'exactly_once_v2',
      stateDir: '/var/lib/app',
    },
    inputTopic: 'lines',
    outputTopic: 'counts',
  });
});

it('has defaults for a local run', () => {
  expect(configFromEnv({})).toEqual({
    streams: { applicationId: '{{applicationId}}', brokers: '127.0.0.1:9092' },
    inputTopic: 'text-input',
    outputTopic: 'word-counts',
  });
});

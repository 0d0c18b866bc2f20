// Provides a broker to the integration tests: KAFKA_BROKERS if set; else a Kafka container when a
// Docker engine answers; else the local JVM broker (started here if not running, and stopped
// afterwards only if it was started here).
import { execFileSync } from 'node:child_process';
import type { TestProject } from 'vitest/node';
import { KAFKA_VERSION, start, stop } from '../kafka/broker.ts';
import './kafka.ts';

function dockerAnswers(): boolean {
  try {
    execFileSync('docker', ['info'], { stdio: 'ignore', timeout: 5_000 });
    return true;
  } catch {
    return false;
  }
}

export default async function setup(project: TestProject) {
  if (process.env.KAFKA_BROKERS) {
    console.log(`[kafka] using KAFKA_BROKERS=${process.env.KAFKA_BROKERS}`);
    project.provide('kafkaBrokers', process.env.KAFKA_BROKERS);
    return;
  }
  if (dockerAnswers()) {
    // Loaded only here so that machines without Docker never need testcontainers.
    const { KafkaContainer } = await import('@testcontainers/kafka');
    const container = await new KafkaContainer(`apache/kafka:${KAFKA_VERSION}`).withKraft().start();
    const brokers = `${container.getHost()}:${container.getMappedPort(9093)}`;
    console.log(`[kafka] using a testcontainers broker at ${brokers}`);
    project.provide('kafkaBrokers', brokers);
    process.env.KAFKA_BROKERS = brokers;
    return async () => {
      await container.stop();
    };
  }
  const result = await start();
  console.log(
    `[kafka] using the local JVM broker at ${result.brokers} (${result.started ? 'started' : 'already running'})`,
  );
  project.provide('kafkaBrokers', result.brokers);
  process.env.KAFKA_BROKERS = result.brokers;
  return async () => {
    if (result.started) await stop();
  };
}

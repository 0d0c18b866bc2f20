// Provides a broker to the integration tests: KAFKA_BROKERS if set; else a Kafka container when a
// Docker engine answers; else the local JVM broker (started here if not running, and stopped
// afterwards only if it was started here).
import { execFileSync } from 'node:child_process';
import type { TestProject } from 'vitest/node';
import { KAFKA_VERSION, start, stop } from '../kafka/broker.ts';
import { freePort } from './free-port.ts';
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
    // The official apache/kafka image, configured like docker-compose.yml. Its advertised
    // listener must name the port clients use, so the host port is fixed (and free) up front.
    // Loaded only here so that machines without Docker never load testcontainers.
    const { GenericContainer, Wait } = await import('testcontainers');
    const port = await freePort();
    const container = await new GenericContainer(`apache/kafka:${KAFKA_VERSION}`)
      .withExposedPorts({ container: port, host: port })
      .withEnvironment({
        KAFKA_NODE_ID: '1',
        KAFKA_PROCESS_ROLES: 'broker,controller',
        KAFKA_LISTENERS: `PLAINTEXT://:${port},CONTROLLER://:9093`,
        KAFKA_ADVERTISED_LISTENERS: `PLAINTEXT://127.0.0.1:${port}`,
        KAFKA_CONTROLLER_LISTENER_NAMES: 'CONTROLLER',
        KAFKA_LISTENER_SECURITY_PROTOCOL_MAP: 'CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT',
        KAFKA_CONTROLLER_QUORUM_VOTERS: '1@localhost:9093',
        KAFKA_AUTO_CREATE_TOPICS_ENABLE: 'false',
        KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS: '0',
        KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR: '1',
        KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR: '1',
        KAFKA_TRANSACTION_STATE_LOG_MIN_ISR: '1',
        KAFKA_SHARE_COORDINATOR_STATE_TOPIC_REPLICATION_FACTOR: '1',
        KAFKA_SHARE_COORDINATOR_STATE_TOPIC_MIN_ISR: '1',
        KAFKA_GROUP_MIN_SESSION_TIMEOUT_MS: '3000',
      })
      .withWaitStrategy(Wait.forLogMessage(/Kafka Server started/))
      .withStartupTimeout(180_000)
      .start();
    const brokers = `127.0.0.1:${port}`;
    console.log(`[kafka] using a testcontainers broker (apache/kafka:${KAFKA_VERSION}) at ${brokers}`);
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

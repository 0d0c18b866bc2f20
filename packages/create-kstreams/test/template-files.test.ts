// The starter's Docker and compose files agree with its code and with the project's Kafka: what a
// test without a Docker engine can check of them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { KAFKA_VERSION } from '../../../scripts/kafka/broker.ts';
import { TEMPLATES_DIR } from '../src/scaffold.js';

const template = (file: string) => readFileSync(join(TEMPLATES_DIR, file), 'utf8');

interface Service {
  image?: string;
  environment?: Record<string, string | number>;
  command?: string[];
  volumes?: string[];
}
const compose = parse(template('compose.yaml')) as { services: Record<string, Service> };
const { kafka, app } = compose.services as { kafka: Service; app: Service };

/** The environment variables src/config.ts reads. */
const configVariables = [
  ...new Set([...template('src/config.ts').matchAll(/env\.([A-Z_]+)/g)].map((m) => m[1]!)),
];

describe('starter templates', () => {
  it('runs the Kafka version the project tests against', () => {
    expect(kafka.image).toBe(`apache/kafka:${KAFKA_VERSION}`);
    expect(compose.services['create-topics']!.image).toBe(`apache/kafka:${KAFKA_VERSION}`);
  });

  it('points the app at a listener Kafka advertises, and creates the topics the app reads and writes', () => {
    const advertised = String(kafka.environment!.KAFKA_ADVERTISED_LISTENERS).split(',');
    expect(advertised.map((l) => l.replace(/^\w+:\/\//, ''))).toContain(app.environment!.KAFKA_BROKERS);
    const created = compose.services['create-topics']!.command!.join('\n');
    for (const topic of [app.environment!.INPUT_TOPIC, app.environment!.OUTPUT_TOPIC]) {
      expect(created).toMatch(new RegExp(`for topic in .*\\b${topic}\\b`));
    }
  });

  it('sets only variables src/config.ts reads, and the README documents each of them', () => {
    expect(configVariables.sort()).toEqual([
      'APPLICATION_ID',
      'INPUT_TOPIC',
      'KAFKA_BROKERS',
      'OUTPUT_TOPIC',
      'PROCESSING_GUARANTEE',
      'STATE_DIR',
    ]);
    for (const key of Object.keys(app.environment!)) expect(configVariables).toContain(key);
    for (const key of configVariables)
      expect(template('README.md')).toMatch(new RegExp(`\\| \`${key}\` +\\|`));
  });

  it('keeps the state on the volume the image prepares, and runs what `npm start` runs', () => {
    const dockerfile = template('Dockerfile');
    const stateDir = /STATE_DIR=(\S+)/.exec(dockerfile)![1];
    expect(app.volumes).toEqual([`state:${stateDir}`]);
    expect(dockerfile).toContain(`chown node:node ${stateDir}`);
    const start = JSON.parse(template('package.json')).scripts.start as string;
    expect(dockerfile).toContain(`CMD ${JSON.stringify(start.split(' '))}`.replaceAll(',', ', '));
  });
});

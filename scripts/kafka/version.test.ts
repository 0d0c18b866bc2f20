import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { KAFKA_VERSION } from './broker.ts';

it('docker-compose.yml runs the same Kafka version as the local broker', () => {
  const compose = readFileSync(join(import.meta.dirname, '../../docker-compose.yml'), 'utf8');
  expect(compose).toContain(`image: apache/kafka:${KAFKA_VERSION}\n`);
});

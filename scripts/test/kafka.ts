// Shared helpers for integration tests: the broker address, unique topic names per test, and
// topics that are deleted again when the test file ends.
import { randomBytes } from 'node:crypto';
import { type Admin, Kafka, logLevel } from 'kafkajs';
import { afterAll, inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    kafkaBrokers: string;
  }
}

export function testBrokers(): string[] {
  const brokers = process.env.KAFKA_BROKERS ?? inject('kafkaBrokers');
  return brokers.split(',').map((b) => b.trim());
}

export function testKafka(clientId = 'kstreams-test'): Kafka {
  return new Kafka({ clientId, brokers: testBrokers(), logLevel: logLevel.NOTHING });
}

/** A topic (or application id) name that no other test, run or machine will pick. */
export function uniqueName(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
}

/**
 * Creates topics for the calling test file and deletes them (and any topics whose name starts
 * with one of `alsoDeletePrefixes`, such as an application's internal topics) after the file.
 */
export function topicsForThisFile() {
  const created = new Set<string>();
  const prefixes = new Set<string>();
  let admin: Admin | undefined;
  const getAdmin = async () => {
    if (!admin) {
      admin = testKafka('kstreams-test-admin').admin();
      await admin.connect();
    }
    return admin;
  };
  afterAll(async () => {
    if (!admin) return;
    const existing = await admin.listTopics();
    const doomed = existing.filter((t) => created.has(t) || [...prefixes].some((p) => t.startsWith(p)));
    if (doomed.length > 0) await admin.deleteTopics({ topics: doomed }).catch(() => {});
    await admin.disconnect();
  });
  return {
    admin: getAdmin,
    async create(prefix: string, numPartitions = 1): Promise<string> {
      const topic = uniqueName(prefix);
      const a = await getAdmin();
      await a.createTopics({ topics: [{ topic, numPartitions }], waitForLeaders: true });
      created.add(topic);
      return topic;
    },
    /** Deletes, after the file, every topic whose name starts with `prefix`. */
    cleanUpPrefix(prefix: string) {
      prefixes.add(prefix);
    },
  };
}

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
 * Creates topics for the calling test file and deletes them after the file, with the topics and
 * consumer groups whose names start with a prefix given to `cleanUpPrefix` (an application id).
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
    // Also when the file only named prefixes (an app's internal topics) and never created a topic.
    if (created.size === 0 && prefixes.size === 0 && !admin) return;
    const a = await getAdmin();
    const mine = (name: string) => created.has(name) || [...prefixes].some((p) => name.startsWith(p));
    const doomed = (await a.listTopics()).filter(mine);
    if (doomed.length > 0) await a.deleteTopics({ topics: doomed }).catch(() => {});
    // The apps' consumer groups (group id = application id, restore groups `<id>-restore-*`).
    const groups = (await a.listGroups()).groups.map((g) => g.groupId).filter(mine);
    if (groups.length > 0) await a.deleteGroups(groups).catch(() => {});
    await a.disconnect();
  });
  return {
    admin: getAdmin,
    async create(prefix: string, numPartitions = 1): Promise<string> {
      const topic = uniqueName(prefix);
      const a = await getAdmin();
      // kafkajs' own wait for leaders fails on the UNKNOWN_TOPIC_OR_PARTITION a KRaft broker may
      // answer right after a create (seen in full runs); poll the metadata instead, as the
      // runtime does for its internal topics.
      await a.createTopics({ topics: [{ topic, numPartitions }], waitForLeaders: false });
      created.add(topic);
      await waitForLeaders(a, topic, numPartitions);
      return topic;
    },
    /** Deletes, after the file, every topic and consumer group whose name starts with `prefix`. */
    cleanUpPrefix(prefix: string) {
      prefixes.add(prefix);
    },
    /**
     * An app's input and output topics (`<name>-in`, `<name>-out`, made unique) and its
     * application id (`<name>-app`, unique), whose internal topics and group go after the file.
     */
    async forApp(name: string, inputPartitions: number, outputPartitions = inputPartitions) {
      const input = await this.create(`${name}-in`, inputPartitions);
      const output = await this.create(`${name}-out`, outputPartitions);
      const applicationId = uniqueName(`${name}-app`);
      this.cleanUpPrefix(applicationId);
      return { input, output, applicationId };
    },
  };
}

/**
 * Until the topic shows all `numPartitions` partitions, each with a leader. Core's
 * StreamsAdmin.waitForTopics polls alike, but it is internal to @kstreams/core (not in its index),
 * scripts/ imports no package's src (its tsconfig's rootDir is scripts/), and loading core's
 * kafka/ would patch kafkajs (producer-grouping.ts) for every test that uses these helpers.
 */
async function waitForLeaders(admin: Admin, topic: string, numPartitions: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      const { topics } = await admin.fetchTopicMetadata({ topics: [topic] });
      const partitions = topics[0]?.partitions ?? [];
      if (partitions.length === numPartitions && partitions.every((p) => p.leader >= 0)) return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
    if (Date.now() > deadline) throw new Error(`topic ${topic} has no leader for every partition after 30 s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

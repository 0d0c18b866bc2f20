// A keyed count written with the Processor API, on the real broker: the runtime's basic loop
// (tasks, stores, changelog, commits) before the DSL's repartitioning comes into play.
import { describe, expect, it } from 'vitest';
import { topicsForThisFile } from '../../../../scripts/test/kafka.ts';
import { KafkaStreams } from '../../src/index.ts';
import { countingTopology } from './fixtures/counting-topology.ts';
import {
  lastCounts,
  produce,
  readTopic,
  stopAfterEach,
  tempStateDir,
  testBrokers,
  uniqueName,
  waitFor,
} from './kafka-helpers.ts';

const topics = topicsForThisFile();
const apps = stopAfterEach((app: KafkaStreams) => app.close({ timeoutMs: 30_000 }));

describe.each(['at_least_once', 'exactly_once'] as const)('Processor API count under %s', (guarantee) => {
  it('counts keys across 3 partitions, then continues after a restart', async () => {
    const input = await topics.create('pa-in', 3);
    const output = await topics.create('pa-out', 3);
    const applicationId = uniqueName('pa-app');
    topics.cleanUpPrefix(applicationId);
    const stateDir = tempStateDir();
    const words = ['alpha', 'beta', 'gamma', 'delta', 'epsilon'];
    const first = Array.from({ length: 500 }, (_, i) => words[i % words.length]!);
    await produce(
      input,
      first.map((w) => ({ key: w, value: w })),
    );
    const start = () => {
      const app = new KafkaStreams(countingTopology(input, output), {
        applicationId,
        brokers: testBrokers(),
        processingGuarantee: guarantee,
        commitIntervalMs: 200,
        stateDir,
        logger: 'warn',
      });
      apps.push(app);
      return app;
    };
    const app = start();
    await app.start();
    await waitFor(() => app.state === 'RUNNING', 60_000, 'RUNNING');
    let records = await readTopic(output, (r) => r.length >= 500);
    expect(Object.fromEntries(lastCounts(records))).toEqual(Object.fromEntries(words.map((w) => [w, 100])));
    await app.close();
    expect(app.state).toBe('NOT_RUNNING');

    await produce(
      input,
      words.map((w) => ({ key: w, value: w })),
    );
    const again = start();
    await again.start();
    records = await readTopic(output, (r) => r.length >= 505);
    expect(Object.fromEntries(lastCounts(records))).toEqual(Object.fromEntries(words.map((w) => [w, 101])));
    if (guarantee === 'exactly_once') expect(records).toHaveLength(505);
  });
});

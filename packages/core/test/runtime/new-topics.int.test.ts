// start() on the real broker with topics created while it starts: it waits for them (bounded)
// instead of failing with missing or unknown topics, so apps need no retry of their own (the
// examples had one). A topic that never comes is still a clear error, after the grace.
import { describe, expect, it } from 'vitest';
import { topicsForThisFile } from '../../../../scripts/test/kafka.ts';
import { KafkaStreams } from '../../src/index.ts';
import { MISSING_TOPIC_GRACE_MS } from '../../src/kafka/new-topics.ts';
import { countingTopology } from './fixtures/counting-topology.ts';
import {
  produce,
  readTopic,
  stopAfterEach,
  tempStateDir,
  testBrokers,
  testKafka,
  uniqueName,
  waitFor,
} from './kafka-helpers.ts';

const topics = topicsForThisFile();
const apps = stopAfterEach((app: KafkaStreams) => app.close({ timeoutMs: 30_000 }));

function newApp(applicationId: string, input: string, output: string) {
  const app = new KafkaStreams(countingTopology(input, output), {
    applicationId,
    brokers: testBrokers(),
    stateDir: tempStateDir(),
    logger: 'silent',
  });
  apps.push(app);
  return app;
}

describe('start() and topics just created', () => {
  it('waits for input and output topics created while it starts', async () => {
    const applicationId = uniqueName('newtopics-app');
    // The topics' names are this file's prefix: deleted after it.
    topics.cleanUpPrefix(applicationId);
    const input = `${applicationId}-in`;
    const output = `${applicationId}-out`;
    const app = newApp(applicationId, input, output);
    const starting = app.start();
    await new Promise((r) => setTimeout(r, 500));
    const admin = testKafka().admin();
    await admin.connect();
    await admin.createTopics({
      waitForLeaders: false,
      topics: [
        { topic: input, numPartitions: 2 },
        { topic: output, numPartitions: 2 },
      ],
    });
    await admin.disconnect();
    await starting;
    await waitFor(() => app.state === 'RUNNING', 60_000, 'RUNNING');
    await produce(input, [{ key: 'k', value: 'v', partition: 1 }]);
    const out = await readTopic(output, (rs) => rs.length >= 1);
    expect(out.map((r) => [r.key, Number(r.value.readBigInt64BE(0))])).toEqual([['k', 1]]);
  });

  it('still fails with a clear error when a topic never comes, after the grace', async () => {
    const applicationId = uniqueName('newtopics-missing');
    topics.cleanUpPrefix(applicationId);
    const output = await topics.create('newtopics-out', 1);
    const app = newApp(applicationId, `${applicationId}-never`, output);
    const started = Date.now();
    await expect(app.start()).rejects.toThrow(
      `looked for ${MISSING_TOPIC_GRACE_MS / 1000} s), or not visible to User:ANONYMOUS: ${applicationId}-never. Create them before starting the app`,
    );
    const waited = Date.now() - started;
    expect(waited).toBeGreaterThanOrEqual(MISSING_TOPIC_GRACE_MS - 1_000);
    expect(waited).toBeLessThan(MISSING_TOPIC_GRACE_MS + 5_000);
    expect(app.state).toBe('ERROR');
  });
});

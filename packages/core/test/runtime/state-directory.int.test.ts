// Kafka Streams' state directory lock on the real broker: a second instance of an application on
// the state directory of a running one (a real child process) is refused at start, naming the
// other process; once that process is SIGKILLed its lock is taken over and the instance runs with
// the state the dead one left. cleanUp() is refused while running and deletes the state after.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { topicsForThisFile } from '../../../../scripts/test/kafka.ts';
import { IllegalStateError, KafkaStreams, StateDirectoryLockedError } from '../../src/index.ts';
import { ChildApp, prepareChildApp } from './child-app.ts';
import { wordCount } from './fixtures/word-count-topology.ts';
import { produce, stopAfterEach, tempStateDir, testBrokers, waitFor } from './kafka-helpers.ts';

const topics = topicsForThisFile();
const apps = stopAfterEach((app: KafkaStreams) => app.close({ timeoutMs: 30_000 }));
const children = stopAfterEach((child: ChildApp) => child.kill());
beforeAll(() => prepareChildApp());

describe('the state directory lock', () => {
  it('refuses a second instance on a running one’s state directory, and takes over after a SIGKILL', async () => {
    const { input, output, applicationId } = await topics.forApp('sdl', 2);
    const stateDir = tempStateDir();
    await produce(
      input,
      Array.from({ length: 200 }, (_, i) => ({ key: `k${i}`, value: `alpha beta ${i % 7}` })),
    );
    const child = new ChildApp({
      KAFKA_BROKERS: testBrokers().join(','),
      APPLICATION_ID: applicationId,
      INPUT_TOPIC: input,
      OUTPUT_TOPIC: output,
      STATE_DIR: stateDir,
      COMMIT_INTERVAL_MS: '200',
    }).start();
    children.push(child);
    await waitFor(() => child.state === 'RUNNING', 60_000, 'the child RUNNING');
    await waitFor(
      () => (child.latestMetrics()?.processedRecords ?? 0) >= 200,
      60_000,
      'the child to process the input',
    );

    const newApp = () => {
      const app = new KafkaStreams(wordCount(input, output), {
        applicationId,
        brokers: testBrokers(),
        stateDir,
        logger: 'silent',
      });
      apps.push(app);
      return app;
    };
    const second = newApp();
    const refusal = await second.start().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(StateDirectoryLockedError);
    expect((refusal as StateDirectoryLockedError).ownerPid).toBe(child.pid);
    expect((refusal as Error).message).toContain(
      `in the same state directory: ${join(stateDir, applicationId)} is locked by process (pid ${child.pid} `,
    );
    expect(second.state).toBe('ERROR');
    // It never joined the group: the child still runs every task.
    expect(child.alive).toBe(true);
    expect(() => second.cleanUp()).toThrow(StateDirectoryLockedError);
    expect(readdirSync(join(stateDir, applicationId)).filter((d) => d.includes('_'))).not.toEqual([]);

    await child.kill();
    const third = newApp();
    await third.start();
    await waitFor(() => third.state === 'RUNNING', 60_000, 'the new instance RUNNING');
    expect(() => third.cleanUp()).toThrow(IllegalStateError);
    await third.close();
    third.cleanUp();
    expect(existsSync(join(stateDir, applicationId))).toBe(false);
  });
});

// The uncaught exception handler decides what a stream thread's fatal error does: REPLACE_THREAD
// starts a new thread that resumes from the last commit; the default, SHUTDOWN_CLIENT, stops the
// app in ERROR; SHUTDOWN_APPLICATION stops every instance of the application, through the group.
// A task that fails more than 5 times in a row is such a fatal error.
import { describe, expect, it } from 'vitest';
import { topicsForThisFile } from '../../../../scripts/test/kafka.ts';
import { KafkaStreams, type StreamThreadExceptionResponse } from '../../src/index.ts';
import { countingTopology } from './fixtures/counting-topology.ts';
import {
  countSequences,
  produce,
  readTopic,
  stopAfterEach,
  tempStateDir,
  testBrokers,
  waitFor,
} from './kafka-helpers.ts';

const topics = topicsForThisFile();
const apps = stopAfterEach((app: KafkaStreams) => app.close({ timeoutMs: 30_000 }));

/** Input: 90 records over keys a, b, c, with one 'boom' record for key b in the middle. */
const INPUT = Array.from({ length: 91 }, (_, i) =>
  i === 45 ? { key: 'b', value: 'boom' } : { key: ['a', 'b', 'c'][i % 3]!, value: 'x' },
);

async function run(response: StreamThreadExceptionResponse, failures: number) {
  const { input, output, applicationId } = await topics.forApp('ueh', 1);
  await produce(input, INPUT);
  let thrown = 0;
  const app = new KafkaStreams(
    countingTopology(input, output, {
      beforeCount: (r) => {
        if (r.value === 'boom' && thrown < failures) {
          thrown++;
          throw new Error(`boom #${thrown}`);
        }
      },
    }),
    {
      applicationId,
      brokers: testBrokers(),
      processingGuarantee: 'exactly_once',
      stateDir: tempStateDir(),
      logger: 'silent',
    },
  );
  apps.push(app);
  const handled: string[] = [];
  app.setUncaughtExceptionHandler((error) => {
    handled.push(error.message);
    return response;
  });
  await app.start();
  return { app, output, handled, thrown: () => thrown };
}

describe('uncaught exception handler', () => {
  it('REPLACE_THREAD: a new thread resumes from the last commit and the output stays exact', async () => {
    // 6 failures in a row exceed the task's 5 retries: the handler is asked once.
    const { app, output, handled, thrown } = await run('REPLACE_THREAD', 6);
    const records = await readTopic(output, (r) => r.length >= 91, { timeoutMs: 90_000, settleMs: 1_000 });
    expect(thrown()).toBe(6);
    expect(handled).toHaveLength(1);
    expect(handled[0]).toMatch(/failed 6 times in a row.*boom #6/);
    expect(app.state).toBe('RUNNING');
    const counts = countSequences(records);
    expect(counts.get('a')).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    expect(counts.get('b')).toEqual(Array.from({ length: 31 }, (_, i) => i + 1));
    expect(counts.get('c')).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
  });

  it('SHUTDOWN_CLIENT: the app stops in ERROR with the cause, and commits nothing past it', async () => {
    const { app, output, handled } = await run('SHUTDOWN_CLIENT', Number.POSITIVE_INFINITY);
    await waitFor(() => app.state === 'ERROR', 60_000, 'ERROR');
    expect(handled).toHaveLength(1);
    expect(app.error?.message).toMatch(/failed 6 times in a row.*boom #6/);
    const records = await readTopic(output, (r) => r.length >= 91, { timeoutMs: 3_000 });
    // Only what came before the 'boom' record (offset 45) can have been committed.
    expect(records.length).toBeLessThanOrEqual(45);
  });

  it('SHUTDOWN_APPLICATION: the other instance of the application stops in ERROR too, told by the group', async () => {
    const { input, output, applicationId } = await topics.forApp('ueh-app', 2);
    let armed = false;
    const handled = new Map<string, string[]>();
    const instance = (name: string) => {
      const app = new KafkaStreams(
        countingTopology(input, output, {
          beforeCount: (r) => {
            if (armed && r.value === 'boom') throw new Error(`boom in ${name}`);
          },
        }),
        {
          applicationId,
          brokers: testBrokers(),
          processingGuarantee: 'exactly_once_v2',
          stateDir: tempStateDir(),
          logger: 'silent',
        },
      );
      apps.push(app);
      handled.set(name, []);
      app.setUncaughtExceptionHandler((error) => {
        handled.get(name)!.push(error.message);
        return 'SHUTDOWN_APPLICATION';
      });
      return app;
    };
    const a = instance('a');
    const b = instance('b');
    await a.start();
    await b.start();
    const tasks = (app: KafkaStreams) => app.metadataForLocalThreads().flatMap((t) => t.activeTasks).length;
    await waitFor(() => tasks(a) === 1 && tasks(b) === 1, 60_000, 'one task on each instance');
    armed = true;
    await produce(input, INPUT);
    await waitFor(() => a.state === 'ERROR' && b.state === 'ERROR', 60_000, 'both instances in ERROR');
    // Exactly one instance failed (the one with key b's partition) and asked for the shutdown.
    const failed = [...handled].filter(([, errors]) => errors.length > 0).map(([name]) => name);
    expect(failed).toHaveLength(1);
    expect(handled.get(failed[0]!)![0]).toMatch(new RegExp(`boom in ${failed[0]}`));
    const other = failed[0] === 'a' ? b : a;
    expect(other.error?.message).toMatch(/asked every instance to stop \(SHUTDOWN_APPLICATION\)/);
  });
});

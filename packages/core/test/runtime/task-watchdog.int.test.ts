// The task watchdog on the real broker: a task made to stall (its partition paused behind the
// runtime's back, the shape of a pause no path resumes) is found, logged at error, counted, and
// recreated from its committed offsets, and the app's state says so while it happens.
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { topicsForThisFile } from '../../../../scripts/test/kafka.ts';
import { KafkaStreams, type KafkaStreamsState } from '../../src/index.ts';
import { wordCount } from './fixtures/word-count-topology.ts';
import {
  lastCounts,
  produce,
  readTopic,
  stopAfterEach,
  tempStateDir,
  testBrokers,
  waitFor,
} from './kafka-helpers.ts';
import { committedLag } from './lag.ts';
import { countWords, makeLines } from './text-fixtures.ts';

const topics = topicsForThisFile();
const apps = stopAfterEach((app: KafkaStreams) => app.close({ timeoutMs: 30_000 }));

/** The kafkajs consumer inside the app, to pause a partition without the runtime knowing. */
/** The stream thread's fetch loop (kafka/partition-fetcher.ts, under the group consumer). */
function fetcherOf(app: KafkaStreams): { pause(tps: Array<{ topic: string; partition: number }>): void } {
  type Fetcher = ReturnType<typeof fetcherOf>;
  return (app as unknown as { thread: { consumer: { fetcher: Fetcher } } }).thread.consumer.fetcher;
}

describe('task watchdog', () => {
  it.each(['at_least_once', 'exactly_once'] as const)(
    '%s: recreates a task whose partition was paused behind its back, and its input is then processed',
    async (guarantee) => {
      const { input, output, applicationId } = await topics.forApp(`stall-${guarantee}`, 2);
      const logs: Array<{ level: number; msg: string; taskId?: string; partitions?: unknown[] }> = [];
      const app = new KafkaStreams(wordCount(input, output), {
        applicationId,
        brokers: testBrokers(),
        stateDir: tempStateDir(),
        processingGuarantee: guarantee,
        commitIntervalMs: 500,
        taskStallTimeoutMs: 3000,
        logger: pino({ level: 'warn' }, { write: (line: string) => logs.push(JSON.parse(line)) }),
      });
      apps.push(app);
      const states: KafkaStreamsState[] = [];
      app.on('stateChange', (s: KafkaStreamsState) => states.push(s));
      const lines = makeLines(4000, 3, 5);
      const feed = (from: number, to: number, partition: number) =>
        produce(
          input,
          lines.slice(from, to).map((value, i) => ({ key: `${from + i}`, value, partition })),
        );
      await feed(0, 1000, 0);
      await feed(1000, 2000, 1);
      await app.start();
      await waitFor(() => app.state === 'RUNNING', 60_000, 'RUNNING');
      const first = countWords(lines.slice(0, 2000));
      await readTopic(output, (rs) => {
        const last = lastCounts(rs);
        return [...first].every(([w, n]) => (last.get(w) ?? 0) >= n);
      });

      fetcherOf(app).pause([{ topic: input, partition: 0 }]);
      const pausedAt = states.length;
      await feed(2000, 3000, 0);
      await feed(3000, 4000, 1);

      await waitFor(() => app.metrics().stalledTasks >= 1, 30_000, 'the stalled task to be recreated');
      const stalled = logs.filter((l) => l.level === 50 && l.msg.startsWith('task stalled'));
      expect(stalled.map((l) => l.taskId)).toEqual(['0_0']);
      expect(stalled[0]!.partitions).toEqual([
        expect.objectContaining({ topic: input, partition: 0, paused: true, end: 2000 }),
      ]);
      // Honest while it happens: not RUNNING until the task runs again.
      await waitFor(() => app.state === 'RUNNING', 30_000, 'RUNNING again');
      expect(states.slice(pausedAt)).toEqual(['REBALANCING', 'RUNNING']);

      const all = countWords(lines);
      const records = await readTopic(output, (rs) => {
        const last = lastCounts(rs);
        return [...all].every(([w, n]) => (last.get(w) ?? 0) >= n);
      });
      expect(lastCounts(records)).toEqual(all);
      const lag = await committedLag(applicationId, [input], () => false, 30_000);
      expect(lag.behind).toEqual([]);
      expect(app.metrics().stalledTasks).toBe(1);
    },
  );
});

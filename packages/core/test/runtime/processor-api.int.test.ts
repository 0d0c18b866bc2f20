// A keyed count written with the Processor API, on the real broker: the runtime's basic loop
// (tasks, stores, changelog, commits) before the DSL's repartitioning comes into play.
import { describe, expect, it } from 'vitest';
import { topicsForThisFile } from '../../../../scripts/test/kafka.ts';
import { KafkaStreams, type ProcessorContext, Record, Serdes, Topology } from '../../src/index.ts';
import { countingTopology } from './fixtures/counting-topology.ts';
import {
  lastCounts,
  produce,
  readTopic,
  stopAfterEach,
  tempStateDir,
  testBrokers,
  waitFor,
} from './kafka-helpers.ts';

const topics = topicsForThisFile();
const apps = stopAfterEach((app: KafkaStreams) => app.close({ timeoutMs: 30_000 }));

describe.each(['at_least_once', 'exactly_once', 'exactly_once_v2'] as const)(
  'Processor API count under %s',
  (guarantee) => {
    it('counts keys across 3 partitions, then continues after a restart', async () => {
      const { input, output, applicationId } = await topics.forApp('pa', 3);
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
      if (guarantee !== 'at_least_once') expect(records).toHaveLength(505);
    });
  },
);

describe("exactly_once_v2: a transaction with only a punctuator's output", () => {
  it("commits (carrying the tasks' offsets again, for fencing) and each tick shows once", async () => {
    const { input, output, applicationId } = await topics.forApp('tick', 2, 1);
    const topology = new Topology()
      .addSource('in', input, { keySerde: Serdes.String(), valueSerde: Serdes.String() })
      .addProcessor(
        'tick',
        () => ({
          init(ctx: ProcessorContext<string, string>) {
            // No input ever comes: every transaction holds punctuators' output only.
            let n = 0;
            ctx.schedule(50, 'wall-clock-time', (ts) => {
              ctx.forward(new Record(`p${ctx.taskId.partition}`, String(++n), ts));
            });
          },
          process() {},
        }),
        'in',
      )
      .addSink('out', output, { keySerde: Serdes.String(), valueSerde: Serdes.String() }, 'tick');
    const app = new KafkaStreams(topology, {
      applicationId,
      brokers: testBrokers(),
      processingGuarantee: 'exactly_once_v2',
      stateDir: tempStateDir(),
      logger: 'warn',
    });
    apps.push(app);
    await app.start();
    const records = await readTopic(output, (r) => r.filter((x) => x.key === 'p1').length >= 20, {
      timeoutMs: 60_000,
    });
    for (const key of ['p0', 'p1']) {
      const ticks = records.filter((r) => r.key === key).map((r) => Number(r.value.toString()));
      expect(ticks.length).toBeGreaterThan(0);
      expect(ticks).toEqual(Array.from({ length: ticks.length }, (_, i) => i + 1));
    }
    expect(app.metrics().commits).toBeGreaterThan(0);
    // The tasks' start offsets went into the transactions (with the group generation).
    const [committed] = await (await topics.admin()).fetchOffsets({
      groupId: applicationId,
      topics: [input],
    });
    expect(committed!.partitions.map((p) => p.offset).sort()).toEqual(['0', '0']);
  });
});

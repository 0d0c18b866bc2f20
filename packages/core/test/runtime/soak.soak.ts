// The liveness soak (issue 17), run by `npm run soak`, never by CI: two word-count apps of three
// instances each, one per guarantee, read the same input, which flows the whole time, while every
// 20-60 s an instance is SIGKILLed and restarted or the broker is restarted. At the end it reports,
// per guarantee: how long after the last fault the committed offsets reached the log ends,
// duplicates and losses, rollbacks, recreated (stalled) tasks and the longest stall seen.
// SOAK_MINUTES (default 30) sets the length; SOAK_SEED the faults.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { brokerOptions, start, stop } from '../../../../scripts/kafka/broker.ts';
import { ChildApp, prepareChildApp } from './child-app.ts';
import { countSequences, createTopics, produce, readTopic, uniqueName } from './kafka-helpers.ts';
import { committedLag } from './lag.ts';
import { countWords, makeLines, prng } from './text-fixtures.ts';

const opts = brokerOptions({ ...process.env, KAFKA_PORT: '19592' });
const brokers = `${opts.host}:${opts.port}`;
const kafka = new Kafka({ brokers: [brokers], logLevel: logLevel.NOTHING });
const minutes = Number(process.env.SOAK_MINUTES ?? 30);
const seed = Number(process.env.SOAK_SEED ?? 1);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const guarantees = ['at_least_once', 'exactly_once'] as const;

beforeAll(async () => {
  await prepareChildApp();
  await start(opts, () => {});
}, 180_000);
afterAll(() => stop(opts, { clean: true }), 60_000);

interface Watched {
  guarantee: (typeof guarantees)[number];
  applicationId: string;
  output: string;
  instances: ChildApp[];
  /** Longest time the sum of committed input offsets stood still while behind. */
  longestStallMs: number;
  stillSince?: { sum: number; at: number };
}

/** The highest value of a metric over each run of each instance, summed: counters reset on restart. */
function total(apps: ChildApp[], metric: string): number {
  let sum = 0;
  for (const app of apps) {
    const byRun = new Map<number, number>();
    for (const e of app.events)
      if (e.metrics) byRun.set(e.run, Math.max(byRun.get(e.run) ?? 0, e.metrics[metric] ?? 0));
    for (const v of byRun.values()) sum += v;
  }
  return sum;
}

it(
  `soak: ${minutes} min of kills and broker restarts under both guarantees`,
  async () => {
    const input = uniqueName('soak-in');
    const watched: Watched[] = guarantees.map((guarantee) => ({
      guarantee,
      applicationId: uniqueName(`soak-${guarantee}`),
      output: uniqueName(`soak-${guarantee}-out`),
      instances: [],
      longestStallMs: 0,
    }));
    await createTopics(kafka, [
      { topic: input, numPartitions: 8 },
      ...watched.map((w) => ({ topic: w.output, numPartitions: 4 })),
    ]);
    for (const w of watched) {
      for (let i = 0; i < 3; i++) {
        w.instances.push(
          new ChildApp({
            KAFKA_BROKERS: brokers,
            APPLICATION_ID: w.applicationId,
            INPUT_TOPIC: input,
            OUTPUT_TOPIC: w.output,
            STATE_DIR: mkdtempSync(join(tmpdir(), 'kstreams-soak-')),
            PROCESSING_GUARANTEE: w.guarantee,
            LOG_LEVEL: 'warn',
          }).start(),
        );
      }
    }
    const all = watched.flatMap((w) => w.instances);
    const rand = prng(seed);
    const endAt = Date.now() + minutes * 60_000;
    let faults = { kills: 0, brokerRestarts: 0 };
    let brokerDown = false;

    // Input flows the whole time; a chunk that fails (broker away) is sent again, so the truth is
    // read back from the input topic at the end rather than assumed.
    let chunk = 0;
    const feeding = (async () => {
      while (Date.now() < endAt) {
        const lines = makeLines(100, 3, seed * 100_000 + chunk);
        await produce(
          input,
          lines.map((value, i) => ({ key: `${chunk}-${i}`, value })),
          kafka,
        ).then(
          () => chunk++,
          () => sleep(1000),
        );
        await sleep(1000);
      }
    })();

    const monitor = setInterval(() => {
      if (brokerDown) return;
      for (const w of watched) {
        void committedLag(w.applicationId, [input], () => false, 0, kafka)
          .then((lag) => {
            const sum = lag.committedTotal;
            const now = Date.now();
            if (lag.behind.length === 0 || w.stillSince?.sum !== sum) w.stillSince = { sum, at: now };
            else w.longestStallMs = Math.max(w.longestStallMs, now - w.stillSince.at);
          })
          .catch(() => {});
      }
    }, 5_000);

    let lastFault = Date.now();
    while (Date.now() + 20_000 < endAt) {
      await sleep(20_000 + rand() * 40_000);
      if (rand() < 0.2) {
        brokerDown = true;
        await stop(opts);
        await sleep(3_000 + rand() * 7_000);
        await start(opts, () => {});
        brokerDown = false;
        faults = { ...faults, brokerRestarts: faults.brokerRestarts + 1 };
        console.log(`[soak] ${new Date().toISOString()} broker restarted`);
      } else {
        const victim = all[Math.floor(rand() * all.length)]!;
        await victim.kill();
        await sleep(1_000 + rand() * 2_000);
        victim.start();
        faults = { ...faults, kills: faults.kills + 1 };
        console.log(
          `[soak] ${new Date().toISOString()} killed and restarted instance ${all.indexOf(victim)}`,
        );
      }
      lastFault = Date.now();
    }
    await feeding;
    console.log(`[soak] faults and input stopped: ${chunk} chunks of 100 lines; checking`);

    const inputRecords = await readTopic(input, () => false, { kafka, timeoutMs: 20_000 });
    const truth = countWords(inputRecords.map((r) => r.value.toString()));
    const words = [...truth.values()].reduce((a, b) => a + b, 0);
    const report: Record<string, unknown>[] = [];
    for (const w of watched) {
      const lag = await committedLag(
        w.applicationId,
        [input],
        (t) => t.startsWith(w.applicationId) && t.endsWith('-repartition'),
        300_000,
        kafka,
      );
      const drainMs = Date.now() - lastFault;
      const records = await readTopic(
        w.output,
        (rs) => {
          const seqs = countSequences(rs);
          return [...truth].every(([k, n]) => Math.max(0, ...(seqs.get(k) ?? [])) >= n);
        },
        { kafka, timeoutMs: 60_000, settleMs: 2_000 },
      );
      const seqs = countSequences(records);
      const lost = [...truth].filter(([k, n]) => Math.max(0, ...(seqs.get(k) ?? [])) < n).length;
      const exact = [...truth].every(([k, n]) => {
        const s = seqs.get(k) ?? [];
        return s.length === n && s.every((c, i) => c === i + 1);
      });
      report.push({
        guarantee: w.guarantee,
        inputLines: inputRecords.length,
        words,
        outputRecords: records.length,
        duplicates: records.length - words,
        wordsCountedShort: lost,
        exact,
        lagZeroAfterLastFaultMs:
          lag.behind.length === 0 ? drainMs : `not within 300 s: ${lag.behind.join(', ')}`,
        rollbacks: total(w.instances, 'rollbacks'),
        fencedTasks: total(w.instances, 'fencedTasks'),
        recreatedStalledTasks: total(w.instances, 'stalledTasks'),
        longestStallMs: w.longestStallMs,
      });
    }
    clearInterval(monitor);
    console.log(`[soak] ${minutes} min, seed ${seed}, faults ${JSON.stringify(faults)}`);
    console.table(report);
    await Promise.all(all.map((a) => a.kill()));
    for (const r of report) {
      expect(r.lagZeroAfterLastFaultMs, `${r.guarantee}: committed offsets reach the log ends`).toBeTypeOf(
        'number',
      );
      expect(r.wordsCountedShort, `${r.guarantee}: nothing lost`).toBe(0);
      if (r.guarantee === 'exactly_once') expect(r.exact, 'exactly_once: every count 1..n once').toBe(true);
    }
  },
  (minutes + 15) * 60_000,
);

// `npm run demo -- rolling-restart`: three word-count instances, each with a groupInstanceId
// (static membership, KIP-345), restarted one after the other while lines flow in; the apps' own
// commit log gives each task's longest pause, and the counts read back must be exactly the text's.
// A restarted instance gets its tasks back without a rebalance; the tasks of the other two keep
// committing (cooperative rebalancing, KIP-429).
import { join } from 'node:path';
import {
  type DemoContext,
  DemoFailure,
  demoAppOptions,
  num,
  runDemo,
  say,
  secs,
  untilDone,
  watchForFailure,
} from '../common/demo.ts';
import { feederProducer } from '../common/kafka.ts';
import { type RunningWordCount, startWordCount } from '../word-count/app.ts';
import { CountsReader } from '../word-count/catch-up.ts';
import { BOOK_PATH, feedLines, readLines } from '../word-count/feeder.ts';
import { wordsOf } from '../word-count/words.ts';
import { CommitLog } from './commit-log.ts';

const INSTANCES = 3;
const PARTITIONS = 6;
/** Lines per second fed while the instances restart, and for how long. */
const RATE = 300;
const FEED_SECONDS = 30;
/** How long each restarted instance runs before the next one restarts. */
const SETTLE_MS = 3_000;
const COMMIT_INTERVAL_MS = 100;
const TIMEOUT_MS = 5 * 60_000;

async function demo(ctx: DemoContext): Promise<void> {
  const { run, kafka, logger, onCleanUp } = ctx;
  const input = `${run}-text-input`;
  const output = `${run}-word-counts`;
  // The book's lines, again from its start when it runs out, and the counts they must give.
  const book: string[] = [];
  for await (const line of readLines(BOOK_PATH)) book.push(line);
  const lines = Array.from({ length: RATE * FEED_SECONDS }, (_, i) => book[i % book.length]!);
  const truth = new Map<string, number>();
  let expectedWords = 0;
  for (const line of lines)
    for (const word of wordsOf(line)) {
      truth.set(word, (truth.get(word) ?? 0) + 1);
      expectedWords++;
    }

  const commits = new CommitLog();
  const instances: RunningWordCount[] = [];
  const failures: Array<() => Error | undefined> = [];
  const start = async (i: number) => {
    const app = await startWordCount(
      {
        ...demoAppOptions(ctx, { input, output, partitions: PARTITIONS }),
        stateDir: join(ctx.stateDir, `instance-${i}`),
        groupInstanceId: `${run}-${i}`,
        commitIntervalMs: COMMIT_INTERVAL_MS,
      },
      commits.loggerFor(i, logger),
    );
    instances[i] = app;
    failures[i] = watchForFailure(app.app);
  };
  onCleanUp(async () => {
    for (const app of instances) await app?.close();
  });
  await Promise.all(Array.from({ length: INSTANCES }, (_, i) => start(i)));
  say(
    `App: ${run}, exactly_once, ${INSTANCES} instances with groupInstanceId ${run}-0..${INSTANCES - 1}, ` +
      `${PARTITIONS} partitions, commit interval ${COMMIT_INTERVAL_MS} ms`,
  );

  const reader = new CountsReader(kafka, output, `${run}-reader`);
  await reader.start();
  onCleanUp(() => reader.stop());
  const producer = feederProducer(kafka);
  await producer.connect();
  onCleanUp(() => producer.disconnect());
  // Paced: a batch every 100 ms, so that input flows through every restart.
  const began = Date.now();
  const fed = feedLines(producer, input, lines, {
    batchSize: RATE / 10,
    beforeBatch: async (sent) => {
      const due = began + (sent.records / RATE) * 1000;
      await new Promise((r) => setTimeout(r, Math.max(0, due - Date.now())));
    },
  });
  say(`Feeding ${num(lines.length)} lines (${num(expectedWords)} words) at ${RATE} lines/s`);

  await new Promise((r) => setTimeout(r, SETTLE_MS));
  const windows: Array<{ instance: number; from: number; to: number }> = [];
  for (let i = 0; i < INSTANCES; i++) {
    const from = Date.now();
    // A static member does not leave the group when it closes: its tasks wait for it.
    await instances[i]!.close();
    const closedAt = Date.now();
    await start(i);
    let back = commits.firstCommitAfter(i, closedAt);
    while (back === undefined) {
      const failure = failures[i]!();
      if (failure) throw new DemoFailure(`instance ${i} failed after its restart: ${failure.message}`);
      await new Promise((r) => setTimeout(r, 20));
      back = commits.firstCommitAfter(i, closedAt);
    }
    say(
      `  instance ${i} restarted: closed in ${secs(closedAt - from)}, ` +
        `committing again ${secs(back - closedAt)} after its close`,
    );
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    windows.push({ instance: i, from, to: Date.now() });
  }
  await fed;

  const state = await untilDone(ctx, input, {
    failure: () => failures.map((f) => f()).find((e) => e !== undefined),
    fraction: () => reader.wordsCounted / expectedWords,
    status: (s) =>
      `${num(reader.wordsCounted)}/${num(expectedWords)} words counted, ${num(s.committed)} lines`,
    done: (s) => reader.wordsCounted > expectedWords || (s.caughtUp && reader.wordsCounted === expectedWords),
    timeoutMs: TIMEOUT_MS,
  });

  // Per task: the longest pause between two commits while another instance restarted (the tasks
  // that stayed), and across its own instance's restart.
  say();
  say(
    `Longest pause between two commits of each task (target for the tasks that stayed: <= ${
      2 * COMMIT_INTERVAL_MS + 1000
    } ms):`,
  );
  const rows = new Map<string, { stayed: number; own: number }>();
  for (const w of windows)
    for (const [task, pause] of commits.longestPauses(w.from, w.to)) {
      const row = rows.get(task) ?? { stayed: 0, own: 0 };
      if (pause.instance === w.instance) row.own = Math.max(row.own, pause.ms);
      else row.stayed = Math.max(row.stayed, pause.ms);
      rows.set(task, row);
    }
  for (const [task, row] of [...rows].sort(([a], [b]) => a.localeCompare(b)))
    say(
      `  task ${task.padEnd(4)} while others restarted: ${num(row.stayed).padStart(6)} ms   ` +
        `its own instance's restart: ${num(row.own).padStart(6)} ms`,
    );
  const worst = Math.max(0, ...[...rows.values()].map((r) => r.stayed));

  say();
  const wrong = [...truth].filter(([word, count]) => reader.latest.get(word) !== count);
  if (reader.wordsCounted !== expectedWords || wrong.length > 0) {
    throw new DemoFailure(
      `the output disagrees with the text: ${num(reader.wordsCounted)} words counted instead of ` +
        `${num(expectedWords)}, ${wrong.length} words with a wrong count` +
        (state.caughtUp ? '' : `; the input was not fully processed within ${secs(TIMEOUT_MS)}`),
    );
  }
  say(
    `Output exact: all ${num(truth.size)} words have the count the text gives (${num(expectedWords)} words, ` +
      `no duplicates, none lost). Longest pause of a task that stayed: ${num(worst)} ms.`,
  );
}

/** `npm run demo -- rolling-restart`. */
export function rollingRestartDemo(): Promise<never> {
  return runDemo('rolling-restart', demo);
}

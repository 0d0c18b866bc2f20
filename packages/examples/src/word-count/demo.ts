// `npm run demo`: a local broker if none is configured, fresh topics, the book fed in, the app run
// under exactly_once with a progress bar, the top words printed once the output has caught up,
// and everything it started stopped and deleted again.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { start as startBroker, stop as stopBroker } from '../../../../scripts/kafka/broker.ts';
import { type RunningWordCount, startWordCount } from './app.ts';
import { CountsReader, type InputProgress, inputProgress } from './catch-up.ts';
import { BOOK_PATH, feedLines, readLines } from './feeder.ts';
import { exampleKafka, feederProducer } from './kafka.ts';
import { createLogger } from './logger.ts';
import { type DemoOptions, GENESIS_LINES, parseDemoArgs, UsageError } from './options.ts';
import { ProgressLine } from './progress.ts';
import { topN } from './queries.ts';
import { COUNTS_STORE } from './topology.ts';
import { wordsOf } from './words.ts';

const PARTITIONS = 4;

const TOP = 20;
const TIMEOUT_MS = 5 * 60_000;

const say = (line = '') => process.stdout.write(`${line}\n`);
const num = (n: number) => n.toLocaleString('en-US');
const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

class DemoFailure extends Error {}

async function main(options: DemoOptions): Promise<void> {
  const began = Date.now();
  // The app logs only warnings here: the demo's own lines and the progress bar tell the story.
  const logger = createLogger(process.env.LOG_LEVEL || 'warn', { name: 'demo', quietKafkaResponses: true });
  const cleanups: Array<() => Promise<unknown>> = [];
  const cleanUp = async () => {
    for (const fn of cleanups.reverse())
      await fn().catch((e) => say(`  (clean-up step failed: ${e.message})`));
  };
  let interrupted = false;
  const onSignal = (signal: string) => {
    if (interrupted) process.exit(130);
    interrupted = true;
    say(`\n${signal}: stopping and cleaning up (again to exit at once)`);
    void cleanUp().finally(() => process.exit(130));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  try {
    let brokers = process.env.KAFKA_BROKERS;
    if (brokers) {
      say(`Kafka: ${brokers} (KAFKA_BROKERS)`);
    } else {
      const broker = await startBroker(undefined, (msg) => say(msg));
      brokers = broker.brokers;
      say(
        `Kafka: ${brokers} (${broker.started ? 'started a local broker' : 'the local broker was already running'})`,
      );
      if (broker.started) cleanups.push(() => stopBroker());
    }
    const brokerList = brokers.split(',').map((b) => b.trim());

    // A fresh application id and fresh topics per run, so that a re-run gives the same numbers.
    const run = `word-count-demo-${Date.now().toString(36)}-${randomBytes(2).toString('hex')}`;
    const input = `${run}-text-input`;
    const output = `${run}-word-counts`;
    const kafka = exampleKafka(brokerList, run, logger);
    const admin = kafka.admin();
    await admin.connect();
    cleanups.push(() => admin.disconnect());
    cleanups.push(async () => {
      const doomed = (await admin.listTopics()).filter((t) => t.startsWith(`${run}-`));
      if (doomed.length > 0) await admin.deleteTopics({ topics: doomed });
      await admin.deleteGroups([run, `${run}-reader`]).catch(() => {});
    });

    // The truth to check the output against, computed from the text itself.
    const lines: string[] = [];
    const truth = new Map<string, number>();
    let expectedWords = 0;
    for await (const line of readLines(options.text)) {
      if (lines.length === options.lines) break;
      lines.push(line);
      for (const word of wordsOf(line)) {
        truth.set(word, (truth.get(word) ?? 0) + 1);
        expectedWords++;
      }
    }
    const what =
      options.text === BOOK_PATH && options.lines === GENESIS_LINES
        ? 'the Book of Genesis (King James Version), '
        : `${options.lines === undefined ? '' : `the first ${num(options.lines)} lines of `}`;
    say(
      `Text: ${what}${relative(process.cwd(), options.text)}: ${num(lines.length)} non-empty lines, ` +
        `${num(expectedWords)} words (${num(truth.size)} distinct)`,
    );

    const stateDir = mkdtempSync(join(tmpdir(), 'kstreams-demo-'));
    cleanups.push(async () => rmSync(stateDir, { recursive: true, force: true }));
    const app: RunningWordCount = await startWordCount(
      {
        brokers: brokerList,
        applicationId: run,
        input,
        output,
        guarantee: 'exactly_once',
        stateDir,
        port: 0,
        host: '127.0.0.1',
        partitions: PARTITIONS,
        logLevel: 'warn',
      },
      logger,
    );
    cleanups.push(() => app.close());
    let appError: Error | undefined;
    app.app.on('error', (error) => {
      appError = error;
    });
    say(`App: ${run}, exactly_once, topics ${input} -> ${output} (${PARTITIONS} partitions each)`);
    say(
      `Queries while it runs: http://${app.applicationServer}/counts/lord  http://${app.applicationServer}/counts?top=${TOP}`,
    );
    say(`Status page: http://${app.applicationServer}/  metrics: http://${app.applicationServer}/metrics`);

    const reader = new CountsReader(kafka, output, `${run}-reader`);
    await reader.start();
    cleanups.push(() => reader.stop());

    const producer = feederProducer(kafka);
    await producer.connect();
    cleanups.push(() => producer.disconnect());
    let fedAt: number | undefined;
    const fed = feedLines(producer, input, lines).then((sent) => {
      fedAt = Date.now();
      return sent;
    });
    const processingStart = Date.now();

    const progress = new ProgressLine();
    let state: InputProgress = { committed: 0, end: 0, caughtUp: false };
    const status = () =>
      `${num(reader.wordsCounted)}/${num(expectedWords)} words counted | ` +
      `${num(state.committed)}/${num(lines.length)} lines committed | ${secs(Date.now() - processingStart)}`;
    for (;;) {
      // A timed-out offset fetch (a busy broker, a busy event loop) is retried on the next round.
      state = await inputProgress(admin, run, input).catch((error) => {
        if (!(error as { retriable?: boolean }).retriable) throw error;
        return state;
      });
      progress.update(reader.wordsCounted / expectedWords, status());
      if (appError) throw new DemoFailure(`the app failed: ${appError.message}`);
      if (reader.wordsCounted > expectedWords) break;
      if (
        fedAt !== undefined &&
        state.caughtUp &&
        state.end === lines.length &&
        reader.wordsCounted === expectedWords
      ) {
        break;
      }
      if (Date.now() - processingStart > TIMEOUT_MS) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    progress.done(reader.wordsCounted / expectedWords, status());
    await fed;

    say();
    say(`Words in the text (computed by the demo):      ${num(expectedWords)}`);
    say(`Sum of the counts read back from ${output.replace(`${run}-`, '')}: ${num(reader.wordsCounted)}`);
    const wrong = [...truth].filter(([word, count]) => reader.latest.get(word) !== count);
    const extra = [...reader.latest.keys()].filter((w) => !truth.has(w));
    if (reader.wordsCounted !== expectedWords || wrong.length > 0 || extra.length > 0) {
      throw new DemoFailure(
        `the output disagrees with the text: ${wrong.length} words with a wrong count (e.g. ${wrong
          .slice(0, 3)
          .map(([w, c]) => `${w}: ${reader.latest.get(w) ?? 'none'} instead of ${c}`)
          .join(', ')}), ${extra.length} words that are not in the text` +
          (state.caughtUp ? '' : `; the input was not fully processed within ${secs(TIMEOUT_MS)}`),
      );
    }
    say(`All ${num(truth.size)} words have exactly the count the text gives.`);

    const top = await topN(
      [...reader.latest].map(([word, count]) => ({ word, count })),
      TOP,
    );
    // The same list from the app's state store, through the interactive-query API.
    const fromStore = await topN(
      (async function* () {
        for await (const { key, value } of app.app.store<string, number>(COUNTS_STORE).all()) {
          yield { word: key, count: value };
        }
      })(),
      TOP,
    );
    if (JSON.stringify(fromStore) !== JSON.stringify(top)) {
      throw new DemoFailure(
        `the store's top ${TOP} differs from the output topic's: ${JSON.stringify(fromStore)}`,
      );
    }
    say();
    say(`Top ${TOP} words (from the output topic; the app's store agrees):`);
    const width = Math.max(...top.map((t) => t.word.length));
    top.forEach((t, i) => {
      say(`  ${String(i + 1).padStart(2)}. ${t.word.padEnd(width)} ${num(t.count).padStart(7)}`);
    });
    say();
    say(
      `Processed in ${secs(Date.now() - processingStart)} ` +
        `(fed in ${secs((fedAt ?? Date.now()) - processingStart)}); total ${secs(Date.now() - began)}. Cleaning up...`,
    );
  } finally {
    await cleanUp();
  }
}

let options: DemoOptions;
try {
  options = parseDemoArgs(process.argv.slice(2), process.env, BOOK_PATH);
} catch (error) {
  if (!(error instanceof UsageError)) throw error;
  console.error(`demo: ${error.message}`);
  process.exit(2);
}
try {
  await main(options);
  say('Done.');
  process.exit(0);
} catch (error) {
  say();
  say(`Demo FAILED: ${(error as Error).message}`);
  if (!(error instanceof DemoFailure)) console.error(error);
  process.exit(1);
}

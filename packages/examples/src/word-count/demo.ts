// `npm run demo` (or `npm run demo -- word-count`): fresh topics, the book fed in, the word count
// run under exactly_once with a progress bar, the top words printed once the output has caught up;
// common/demo.ts starts the broker if needed and stops and deletes all it started.
import { relative } from 'node:path';
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
import type { InputProgress } from '../common/input-progress.ts';
import { feederProducer } from '../common/kafka.ts';
import { parseOrExit } from '../common/options.ts';
import { type RunningWordCount, startWordCount } from './app.ts';
import { CountsReader } from './catch-up.ts';
import { BOOK_PATH, feedLines, readLines } from './feeder.ts';
import { type DemoOptions, GENESIS_LINES, parseDemoArgs } from './options.ts';
import { topN } from './queries.ts';
import { COUNTS_STORE } from './topology.ts';
import { wordsOf } from './words.ts';

const PARTITIONS = 4;

const TOP = 20;
const TIMEOUT_MS = 5 * 60_000;

async function demo(ctx: DemoContext, options: DemoOptions): Promise<void> {
  const began = Date.now();
  const { run, kafka, logger, onCleanUp } = ctx;
  const input = `${run}-text-input`;
  const output = `${run}-word-counts`;

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

  const app: RunningWordCount = await startWordCount(
    demoAppOptions(ctx, { input, output, partitions: PARTITIONS }),
    logger,
  );
  onCleanUp(() => app.close());
  const failure = watchForFailure(app.app);
  say(`App: ${run}, exactly_once, topics ${input} -> ${output} (${PARTITIONS} partitions each)`);
  say(
    `Queries while it runs: http://${app.applicationServer}/counts/lord  http://${app.applicationServer}/counts?top=${TOP}`,
  );
  say(`Status page: http://${app.applicationServer}/  metrics: http://${app.applicationServer}/metrics`);

  const reader = new CountsReader(kafka, output, `${run}-reader`);
  await reader.start();
  onCleanUp(() => reader.stop());

  const producer = feederProducer(kafka);
  await producer.connect();
  onCleanUp(() => producer.disconnect());
  let fedAt: number | undefined;
  const fed = feedLines(producer, input, lines).then((sent) => {
    fedAt = Date.now();
    return sent;
  });
  const processingStart = Date.now();

  const status = (state: InputProgress) =>
    `${num(reader.wordsCounted)}/${num(expectedWords)} words counted | ` +
    `${num(state.committed)}/${num(lines.length)} lines committed | ${secs(Date.now() - processingStart)}`;
  const state = await untilDone(ctx, input, {
    failure,
    fraction: () => reader.wordsCounted / expectedWords,
    status,
    // More words than the text has can only grow: stop and report.
    done: (s) =>
      reader.wordsCounted > expectedWords ||
      (fedAt !== undefined && s.caughtUp && s.end === lines.length && reader.wordsCounted === expectedWords),
    timeoutMs: TIMEOUT_MS,
  });
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
}

/** `npm run demo -- [word-count] [--text FILE] [--lines N|all]`. */
export async function wordCountDemo(argv: readonly string[]): Promise<never> {
  const options = parseOrExit('demo', () => parseDemoArgs(argv, process.env, BOOK_PATH));
  return runDemo('word-count', (ctx) => demo(ctx, options));
}

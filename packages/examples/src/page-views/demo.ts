// `npm run demo -- page-views`: generated page views fed to fresh topics, the page-views app run
// under exactly_once, the final per-minute counts read back read_committed and checked window by
// window against the generated data (and the sessions in the store against it too), then a
// summary; common/demo.ts starts the broker if needed and removes all it started.
import { QueryableStoreTypes } from '@kstreams/core';
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
import { simulatedStart } from '../common/simulation.ts';
import { startPageViews } from './app.ts';
import { sendPageViews } from './feeder.ts';
import { checkFinalWindows, describeCheck, FinalWindowsReader, isRight } from './final-windows.ts';
import { countsPerMinute, generatePageViews, type SessionTruth, sessionsPerUser } from './generator.ts';
import { type GeneratorFlags, parseGeneratorArgs } from './options.ts';
import { GRACE_MS, SESSIONS_STORE, type Session } from './topology.ts';

const PARTITIONS = 4;
const TIMEOUT_MS = 5 * 60_000;
/** After the last window arrived, how long to go on reading for a duplicate. */
const SETTLE_MS = 2_000;
const HOUR_MS = 3_600_000;

const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);

async function demo(ctx: DemoContext, options: GeneratorFlags): Promise<void> {
  const began = Date.now();
  const { run, kafka, logger, onCleanUp } = ctx;
  const input = `${run}-page-views`;
  const output = `${run}-views-per-minute`;

  const startMs = simulatedStart(options.hours);
  const data = generatePageViews({ ...options, startMs, partitions: PARTITIONS });
  const truth = countsPerMinute(data.views);
  const sessions = sessionsPerUser(data.views);
  const sessionCount = [...sessions.values()].reduce((n, s) => n + s.length, 0);
  say(
    `Data: ${num(data.views.length)} page views of ${options.users} users, ${hhmm(startMs)}-${hhmm(startMs + options.hours * HOUR_MS)} UTC ` +
      `(seed ${options.seed}); ${num(data.outOfOrder)} sent out of order (within the ${GRACE_MS / 1000} s grace); ` +
      `${num(truth.size)} user-minutes, ${num(sessionCount)} sessions`,
  );

  const app = await startPageViews(demoAppOptions(ctx, { input, output, partitions: PARTITIONS }), logger);
  onCleanUp(() => app.close());
  const failure = watchForFailure(app.app);
  const base = `http://${app.applicationServer}`;
  say(`App: ${run}, exactly_once, topics ${input} -> ${output} (${PARTITIONS} partitions each)`);
  say(
    `Queries while it runs: ${base}/users/alice/windows  ${base}/users/alice/sessions  status page: ${base}/`,
  );

  const reader = new FinalWindowsReader(kafka, output, `${run}-reader`);
  await reader.start();
  onCleanUp(() => reader.stop());
  const producer = feederProducer(kafka);
  await producer.connect();
  onCleanUp(() => producer.disconnect());
  const records = [...data.views, ...data.endOfData];
  let fed = false;
  const feeding = sendPageViews(producer, input, records).then(() => {
    fed = true;
  });
  const processingStart = Date.now();
  const status = (s: InputProgress) =>
    `${num(reader.seen.size)}/${num(truth.size)} final windows | ` +
    `${num(s.committed)}/${num(records.length)} views committed | ${secs(Date.now() - processingStart)}`;
  await untilDone(ctx, input, {
    failure,
    fraction: () => reader.seen.size / truth.size,
    status,
    done: (s) =>
      fed &&
      s.caughtUp &&
      s.end === records.length &&
      reader.seen.size >= truth.size &&
      Date.now() - reader.lastRecordTime > SETTLE_MS,
    timeoutMs: TIMEOUT_MS,
  });
  await feeding;
  const processedIn = Date.now() - processingStart;

  say();
  const check = checkFinalWindows(reader.records, truth);
  if (!isRight(check))
    throw new DemoFailure(`the final counts disagree with the data: ${describeCheck(check)}`);
  say(
    `All ${num(truth.size)} user-minutes have exactly one final count in ${output.replace(`${run}-`, '')}, ` +
      'equal to the count in the data.',
  );
  const store = app.app.store(SESSIONS_STORE, QueryableStoreTypes.sessionStore<string, Session>());
  for (const [user, expected] of sessions) {
    const stored: SessionTruth[] = [];
    for await (const { key, value } of store.fetch(user))
      stored.push({ start: key.start, end: key.end, ...value });
    if (JSON.stringify(stored) !== JSON.stringify(expected))
      throw new DemoFailure(
        `the sessions of ${user} in the store differ from the data: ${JSON.stringify(stored)}`,
      );
  }
  say(`All ${num(sessionCount)} sessions in the store '${SESSIONS_STORE}' match the data.`);
  await summary(base, reader.records);
  say();
  say(`Processed in ${secs(processedIn)}; total ${secs(Date.now() - began)}. Cleaning up...`);
}

/** Top users and minutes from the output topic; the top user's sessions through the HTTP route. */
async function summary(base: string, windows: FinalWindowsReader['records']): Promise<void> {
  const perUser = new Map<string, number>();
  for (const w of windows) perUser.set(w.user, (perUser.get(w.user) ?? 0) + w.views);
  const users = [...perUser].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 5);
  say();
  say('Top users (views, from the final per-minute counts):');
  for (const [user, views] of users) say(`  ${user.padEnd(10)} ${String(views).padStart(5)}`);
  say('Busiest user-minutes:');
  const busiest = [...windows].sort((a, b) => b.views - a.views || a.start - b.start).slice(0, 5);
  for (const w of busiest)
    say(`  ${w.user.padEnd(10)} ${hhmm(w.start)}-${hhmm(w.end)} ${String(w.views).padStart(3)} views`);
  const top = users[0]![0];
  const res = await fetch(`${base}/users/${top}/sessions`);
  if (!res.ok)
    throw new DemoFailure(`GET /users/${top}/sessions answered ${res.status}: ${await res.text()}`);
  const body = (await res.json()) as {
    sessions: Array<{ start: number; end: number; views: number; pages: string[] }>;
  };
  say(`Sessions of ${top} (GET /users/${top}/sessions):`);
  for (const s of body.sessions) {
    const minutes = Math.round((s.end - s.start) / 60_000);
    say(
      `  ${hhmm(s.start)}-${hhmm(s.end)} ${String(minutes).padStart(3)} min ${String(s.views).padStart(3)} views, ${s.pages.length} pages`,
    );
  }
}

/** `npm run demo -- page-views [--users N] [--hours N] [--seed N]`. */
export async function pageViewsDemo(argv: readonly string[]): Promise<never> {
  const options = parseOrExit('demo', () => parseGeneratorArgs(argv));
  return runDemo('page-views', (ctx) => demo(ctx, options));
}

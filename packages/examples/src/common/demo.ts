// What every demo does around its own story: a local broker unless KAFKA_BROKERS is set, a fresh
// application id (so that a re-run gives the same numbers), a state directory, clean-up of all it
// started (also on Ctrl-C), and the exit code: 0 when the output was right, 1 otherwise.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KafkaStreams } from '@kstreams/core';
import type { Admin, Kafka } from 'kafkajs';
import type { Logger } from 'pino';
import { start as startBroker, stop as stopBroker } from '../../../../scripts/kafka/broker.ts';
import { type InputProgress, inputProgress } from './input-progress.ts';
import { exampleKafka } from './kafka.ts';
import { createLogger } from './logger.ts';
import type { AppOptions } from './options.ts';
import { ProgressLine } from './progress.ts';

export const say = (line = '') => process.stdout.write(`${line}\n`);
export const num = (n: number) => n.toLocaleString('en-US');
export const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** The output disagrees with the input: reported without a stack. */
export class DemoFailure extends Error {}

export interface DemoContext {
  brokers: string[];
  /** The run's application id, also the prefix of its topics and consumer groups. */
  run: string;
  kafka: Kafka;
  admin: Admin;
  logger: Logger;
  /** A fresh state directory, deleted at the end. */
  stateDir: string;
  /** Runs at the end, last added first. */
  onCleanUp(fn: () => Promise<unknown>): void;
}

async function setUp(name: string, cleanups: Array<() => Promise<unknown>>): Promise<DemoContext> {
  // The app logs only warnings here: the demo's own lines and the progress bar tell the story.
  const logger = createLogger(process.env.LOG_LEVEL || 'warn', { name: 'demo', quietKafkaResponses: true });
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
  const run = `${name}-demo-${Date.now().toString(36)}-${randomBytes(2).toString('hex')}`;
  const kafka = exampleKafka(brokerList, run, logger);
  const admin = kafka.admin();
  await admin.connect();
  cleanups.push(() => admin.disconnect());
  cleanups.push(async () => {
    const doomed = (await admin.listTopics()).filter((t) => t.startsWith(`${run}-`));
    if (doomed.length > 0) await admin.deleteTopics({ topics: doomed });
    const groups = (await admin.listGroups()).groups.map((g) => g.groupId);
    const ours = groups.filter((g) => g === run || g.startsWith(`${run}-`));
    if (ours.length > 0) await admin.deleteGroups(ours).catch(() => {});
  });
  const stateDir = mkdtempSync(join(tmpdir(), 'kstreams-demo-'));
  cleanups.push(async () => rmSync(stateDir, { recursive: true, force: true }));
  return {
    brokers: brokerList,
    run,
    kafka,
    admin,
    logger,
    stateDir,
    onCleanUp: (fn) => cleanups.push(fn),
  };
}

/** The app's options in a demo: the run's id and state directory, exactly_once, any free port. */
export function demoAppOptions(
  ctx: DemoContext,
  topics: { input: string; output: string; partitions: number },
): AppOptions {
  return {
    brokers: ctx.brokers,
    applicationId: ctx.run,
    ...topics,
    guarantee: 'exactly_once',
    stateDir: ctx.stateDir,
    port: 0,
    host: '127.0.0.1',
    logLevel: 'warn',
  };
}

/** Runs a demo and exits: 0 when it ends well, 1 when it fails, 130 on a signal. */
export async function runDemo(name: string, body: (ctx: DemoContext) => Promise<void>): Promise<never> {
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
    try {
      await body(await setUp(name, cleanups));
    } finally {
      await cleanUp();
    }
    say('Done.');
    process.exit(0);
  } catch (error) {
    say();
    say(`Demo FAILED: ${(error as Error).message}`);
    if (!(error instanceof DemoFailure)) console.error(error);
    process.exit(1);
  }
}

/** The error that stopped the app, if one did. */
export function watchForFailure(app: KafkaStreams): () => Error | undefined {
  let failure: Error | undefined;
  app.on('error', (error) => {
    failure = error;
  });
  return () => failure;
}

/**
 * Draws the progress bar until `done()` says the output is complete (or the time is up): each
 * round reads the group's committed input offsets and throws if the app failed.
 */
export async function untilDone(
  ctx: DemoContext,
  input: string,
  watch: {
    failure: () => Error | undefined;
    fraction: () => number;
    status: (input: InputProgress) => string;
    done: (input: InputProgress) => boolean;
    timeoutMs: number;
  },
): Promise<InputProgress> {
  const started = Date.now();
  const progress = new ProgressLine();
  let state: InputProgress = { committed: 0, end: 0, caughtUp: false };
  for (;;) {
    // A timed-out offset fetch (a busy broker, a busy event loop) is retried on the next round.
    state = await inputProgress(ctx.admin, ctx.run, input).catch((error) => {
      if (!(error as { retriable?: boolean }).retriable) throw error;
      return state;
    });
    progress.update(watch.fraction(), watch.status(state));
    const failure = watch.failure();
    if (failure) throw new DemoFailure(`the app failed: ${failure.message}`);
    if (watch.done(state) || Date.now() - started > watch.timeoutMs) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  progress.done(watch.fraction(), watch.status(state));
  return state;
}

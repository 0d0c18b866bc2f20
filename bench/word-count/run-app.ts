// Runs one app in a child process: waits until it has loaded, starts it, polls its progress
// until the output is complete, stops it and collects what it used. The child is a Node process
// (child.ts, over the IPC channel) or anything else that speaks the protocol (java-app.ts).
import { type ChildProcess, fork } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleEntry } from '../../scripts/test/bundle.ts';
import { repoRoot } from './cluster.ts';
import type { ProgressCheck } from './progress.ts';
import type { AppKind, ChildArgs, ChildMessage, ParentMessage } from './protocol.ts';
import type { Verification } from './verify.ts';

const CHILD = fileURLToPath(new URL('./child.ts', import.meta.url));
const POLL_MS = 50;

export interface AppResult {
  kind: AppKind;
  topologySource?: string;
  cache?: 'on' | 'off';
  /** Why the variant did not run (Java not installed). */
  skipped?: string;
  startedAt?: number;
  runningAt?: number;
  doneAt?: number;
  maxRssKb?: number;
  cpuUs?: number;
  processed?: number;
  dropped?: number;
  error?: string;
  cpuProfile?: string;
  verification?: Verification;
}

type Waiter = { type: ChildMessage['type']; resolve: (m: ChildMessage) => void };

/** A started app process and how to talk to it. */
export interface Launched {
  child: ChildProcess;
  send(message: ParentMessage): void;
  onMessage(listener: (message: ChildMessage) => void): void;
}

export type Launcher = (args: ChildArgs, cpuProfileDir?: string) => Launched;

/**
 * The Node apps run bundled into plain JavaScript (as a deployed app runs), not under tsx, whose
 * module-hooks thread would add its own isolate to every app's memory.
 */
const nodeLauncher =
  (script: string): Launcher =>
  (args, cpuProfileDir) => {
    // BENCH_NODE_ARGS: extra Node flags for the Node apps (e.g. --trace-gc, a heap cap), for finding
    // where memory goes; the results then describe the flagged runs, not the defaults.
    const execArgv = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
    if (cpuProfileDir) execArgv.push('--cpu-prof', `--cpu-prof-dir=${cpuProfileDir}`);
    const child = fork(script, [JSON.stringify(args)], { cwd: repoRoot, execArgv, stdio: 'inherit' });
    return { child, send: (m) => child.send(m), onMessage: (listener) => child.on('message', listener) };
  };

/** Turns the child's messages into awaitable steps; a failure or exit rejects whatever waits. */
class ChildChannel {
  private readonly inbox: ChildMessage[] = [];
  private waiter?: Waiter & { reject: (e: Error) => void };
  failure?: string;
  /** The app's latest count of processed records. */
  processed?: number;

  constructor(private readonly launched: Launched) {
    launched.onMessage((m: ChildMessage) => {
      if (m.type === 'failed') this.fail(m.error);
      else if (m.type === 'progress') this.processed = m.processed;
      else if (this.waiter?.type === m.type) {
        const w = this.waiter;
        this.waiter = undefined;
        w.resolve(m);
      } else this.inbox.push(m);
    });
    launched.child.on('exit', (code, signal) => this.fail(`child exited (code ${code}, signal ${signal})`));
  }

  private fail(reason: string): void {
    this.failure ??= reason;
    const w = this.waiter;
    this.waiter = undefined;
    w?.reject(new Error(this.failure));
  }

  send(message: ParentMessage): void {
    this.launched.send(message);
  }

  next<T extends ChildMessage['type']>(
    type: T,
    timeoutMs: number,
  ): Promise<Extract<ChildMessage, { type: T }>> {
    const queued = this.inbox.findIndex((m) => m.type === type);
    if (queued >= 0)
      return Promise.resolve(this.inbox.splice(queued, 1)[0] as Extract<ChildMessage, { type: T }>);
    if (this.failure) return Promise.reject(new Error(this.failure));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiter = undefined;
        reject(new Error(`no "${type}" from the child within ${timeoutMs / 1000} s`));
      }, timeoutMs);
      this.waiter = {
        type,
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m as Extract<ChildMessage, { type: T }>);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      };
    });
  }
}

/** The sum of the numbers that are there; undefined when none is (an app that does not report it). */
function sumDefined(values: Array<number | undefined>): number | undefined {
  const present = values.filter((n) => n !== undefined);
  return present.length === 0 ? undefined : present.reduce((a, b) => a + b, 0);
}

export async function runApp(opts: {
  args: ChildArgs;
  /**
   * How to tell that the app is done, given what the child reported about itself and its latest
   * count of processed records.
   */
  progress(
    ready: Extract<ChildMessage, { type: 'ready' }>,
    processed: () => number | undefined,
  ): ProgressCheck;
  timeoutMs: number;
  cpuProfileDir?: string;
  /** Default: the Node child (child.ts). */
  launch?: Launcher;
  /**
   * Processes of the app, all with its application id (one group, the partitions split between
   * them): their CPU and peak RSS are summed; processing is timed from the first one running.
   */
  instances?: number;
}): Promise<AppResult> {
  const { args } = opts;
  const result: AppResult = { kind: args.kind };
  const launch = opts.launch ?? nodeLauncher(await bundleEntry(CHILD));
  const count = opts.instances ?? 1;
  const launched = Array.from({ length: count }, (_, i) =>
    launch(i === 0 ? args : { ...args, stateDir: `${args.stateDir}-${i}` }, opts.cpuProfileDir),
  );
  const channels = launched.map((l) => new ChildChannel(l));
  const exited = Promise.all(
    launched.map(({ child }) => new Promise<void>((resolve) => child.once('exit', () => resolve()))),
  );
  const processed = () => sumDefined(channels.map((c) => c.processed));
  try {
    const readies = await Promise.all(channels.map((c) => c.next('ready', 60_000)));
    const ready = readies[0]!;
    result.topologySource = ready.topologySource;
    result.cache = ready.cache;
    const check = opts.progress(ready, processed);
    for (const c of channels) c.send({ type: 'start' });
    const running = await Promise.all(channels.map((c) => c.next('running', opts.timeoutMs)));
    result.startedAt = Math.min(...running.map((r) => r.startedAt));
    result.runningAt = Math.min(...running.map((r) => r.runningAt));
    let lastLog = Date.now();
    for (;;) {
      const failure = channels.find((c) => c.failure)?.failure;
      if (failure) throw new Error(failure);
      const progress = await check();
      if (progress.done) {
        result.doneAt = progress.at;
        break;
      }
      if (Date.now() - result.startedAt > opts.timeoutMs) {
        // Stopped as when done, so that the child still says what it processed and dropped.
        result.error = `not done after ${opts.timeoutMs / 1000} s: ${progress.detail}`;
        break;
      }
      if (Date.now() - lastLog > 5_000) {
        console.log(`  ${args.kind}: ${progress.detail}`);
        lastLog = Date.now();
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
    for (const c of channels) c.send({ type: 'stop' });
    const stopped = await Promise.all(channels.map((c) => c.next('stopped', 90_000)));
    result.maxRssKb = sumDefined(stopped.map((m) => m.maxRssKb));
    result.cpuUs = sumDefined(stopped.map((m) => m.cpuUserUs + m.cpuSystemUs));
    result.processed = sumDefined(stopped.map((m) => m.processed));
    result.dropped = sumDefined(stopped.map((m) => m.dropped));
    await exited;
    if (opts.cpuProfileDir) {
      // One profile per thread: CPU.<date>.<time>.<pid>.<thread>.<seq>; thread 0 is the main
      // thread, where the app runs (one instance's, when there are several).
      const file = readdirSync(opts.cpuProfileDir).find((f) => /\.\d+\.0\.\d+\.cpuprofile$/.test(f));
      if (file) result.cpuProfile = join(opts.cpuProfileDir, file);
    }
  } catch (error) {
    const message = (error as Error).message;
    result.error = result.error === undefined ? message : `${result.error}; then ${message}`;
    for (const { child } of launched)
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  }
  return result;
}

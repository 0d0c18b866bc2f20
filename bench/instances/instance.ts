// One instance of core's crash-test word-count app (test/runtime/fixtures/word-count-app.ts,
// bundled) run as a child process by the multi-instance benches (rolling-restart,
// standby-failover), and what they observe of it: its debug log lines on stderr ("assignment
// received", "task running", "committed") and its JSON events on stdout (restoreStart, restoreEnd,
// configError), each kept per run (a restart is a new run of the same instance).
import { type ChildProcess, spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { bundleEntry } from '../../scripts/test/bundle.ts';

export interface Commit {
  at: number;
  tasks: string[];
  /** How long the commit took (from its start to the log line). */
  ms: number;
}

/** Log lines of a start, in order (the first of each per run): the kill -9 phase table. */
export const STARTUP_MILESTONES = [
  'modules loaded',
  'state change',
  'admin connected',
  'topics checked',
  'group coordinator found',
  'JoinGroup answered',
  'SyncGroup answered',
  'assignment received',
  'task producer initialized',
  'task initialized',
  'task running',
  'first batch fetched',
];

export interface Assignment {
  at: number;
  tasks: string[];
}

/** A JSON line of the app's stdout (`{"event": ...}`), stamped when the bench read it. */
export interface AppEvent {
  at: number;
  event: string;
  [field: string]: unknown;
}

/** Bundles the crash-test app once; every instance runs the bundle with plain node. */
export function bundleWordCountApp(): Promise<string> {
  return bundleEntry(
    join(import.meta.dirname, '../../packages/core/test/runtime/fixtures/word-count-app.ts'),
  );
}

class Run {
  readonly commits: Commit[] = [];
  readonly assignments: Assignment[] = [];
  /** Each "task running" line (the task's stores restored, its input resumed). */
  readonly running: Array<{ at: number; task: string }> = [];
  readonly events: AppEvent[] = [];
  /** The first time of each of STARTUP_MILESTONES, and 'node started' (the process's time origin). */
  readonly startup = new Map<string, number>();
}

export class Instance {
  child?: ChildProcess;
  run = 0;
  spawnedAt = 0;
  private readonly runs = new Map<number, Run>();
  exited?: Promise<number | null>;
  constructor(
    readonly script: string,
    readonly env: Record<string, string>,
  ) {}

  start(): void {
    const run = ++this.run;
    const seen = new Run();
    this.runs.set(run, seen);
    this.spawnedAt = Date.now();
    const child = spawn(process.execPath, [this.script], {
      env: { ...process.env, ...this.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    this.exited = new Promise((r) => child.once('exit', (code) => r(code)));
    // BENCH_INSTANCE_LOG: a file every instance's log lines are appended to (finding the waits).
    const logFile = process.env.BENCH_INSTANCE_LOG;
    createInterface({ input: child.stderr! }).on('line', (line) => {
      if (logFile) appendFileSync(logFile, `${child.pid} ${line}\n`);
      if (!line.includes('"msg":"')) return;
      try {
        const e = JSON.parse(line) as {
          msg?: string;
          time: number;
          tasks?: string[];
          taskId?: string;
          ms?: number;
          processStartedAt?: number;
        };
        if (e.msg === 'committed' && e.tasks)
          seen.commits.push({ at: e.time, tasks: e.tasks, ms: e.ms ?? 0 });
        else if (e.msg === 'assignment received' && e.tasks)
          seen.assignments.push({ at: e.time, tasks: e.tasks });
        else if (e.msg === 'task running' && e.taskId) seen.running.push({ at: e.time, task: e.taskId });
        if (e.msg !== undefined && STARTUP_MILESTONES.includes(e.msg) && !seen.startup.has(e.msg))
          seen.startup.set(e.msg, e.time);
        // When node's process began (performance.timeOrigin): spawn to node's start.
        if (e.processStartedAt !== undefined && !seen.startup.has('node started'))
          seen.startup.set('node started', e.processStartedAt);
      } catch {}
    });
    createInterface({ input: child.stdout! }).on('line', (line) => {
      try {
        const e = JSON.parse(line) as { event?: string };
        // The once-a-second metrics would only fill memory.
        if (e.event !== undefined && e.event !== 'metrics' && e.event !== 'state')
          seen.events.push({ ...e, event: e.event, at: Date.now() });
      } catch {}
    });
  }

  async signal(sig: NodeJS.Signals): Promise<void> {
    this.child?.kill(sig);
    await this.exited;
  }

  commits(run = this.run): Commit[] {
    return this.runs.get(run)?.commits ?? [];
  }

  assignments(run = this.run): Assignment[] {
    return this.runs.get(run)?.assignments ?? [];
  }

  /** When `task` was first logged running after `after` in the current run. */
  runningAt(task: string, after: number): number | undefined {
    return this.runs.get(this.run)?.running.find((r) => r.task === task && r.at > after)?.at;
  }

  events(run = this.run): AppEvent[] {
    return this.runs.get(run)?.events ?? [];
  }

  /** The run numbers so far (1..run). */
  runNumbers(): number[] {
    return [...this.runs.keys()];
  }

  /** The tasks of the run's latest assignment. */
  currentTasks(run = this.run): string[] {
    return this.assignments(run).at(-1)?.tasks ?? [];
  }

  /** Start-up milestones of a run: its first assignment and its first task running (NaN if not yet). */
  milestones(run = this.run): { 'assignment received': number; 'task running': number } {
    return {
      'assignment received': this.assignments(run)[0]?.at ?? Number.NaN,
      'task running': this.runs.get(run)?.running[0]?.at ?? Number.NaN,
    };
  }

  /** The first time of each start-up milestone of a run (STARTUP_MILESTONES, 'node started'). */
  startup(run = this.run): ReadonlyMap<string, number> {
    return this.runs.get(run)?.startup ?? new Map();
  }

  firstCommitAfter(run: number): Promise<number> {
    return waitFor(() => this.commits(run)[0]?.at);
  }

  /** The first commit of a run, with how long it took. */
  firstCommit(run: number): Promise<Commit> {
    return waitFor(() => this.commits(run)[0]);
  }
}

/** Polls `probe` every 20 ms until it answers a value; rejects after `timeoutMs` with `what`. */
export function waitFor<T>(
  probe: () => T | undefined,
  timeoutMs = Number.POSITIVE_INFINITY,
  what = 'a condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const poll = setInterval(() => {
      const value = probe();
      if (value !== undefined) {
        clearInterval(poll);
        resolve(value);
      } else if (Date.now() > deadline) {
        clearInterval(poll);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
      }
    }, 20);
  });
}

// One instance of core's crash-test word-count app (test/runtime/fixtures/word-count-app.ts,
// bundled) run as a child process by the multi-instance benches (rolling-restart,
// standby-failover), and what they observe of it: its debug log lines on stderr ("assignment
// received", "task running", "committed") and its JSON events on stdout (restoreStart, restoreEnd,
// configError), each kept per run (a restart is a new run of the same instance).
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { bundleEntry } from '../../scripts/test/bundle.ts';

export interface Commit {
  at: number;
  tasks: string[];
}

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
    createInterface({ input: child.stderr! }).on('line', (line) => {
      if (!line.includes('"msg":"')) return;
      try {
        const e = JSON.parse(line) as { msg?: string; time: number; tasks?: string[]; taskId?: string };
        if (e.msg === 'committed' && e.tasks) seen.commits.push({ at: e.time, tasks: e.tasks });
        else if (e.msg === 'assignment received' && e.tasks)
          seen.assignments.push({ at: e.time, tasks: e.tasks });
        else if (e.msg === 'task running' && e.taskId) seen.running.push({ at: e.time, task: e.taskId });
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

  firstCommitAfter(run: number): Promise<number> {
    return waitFor(() => this.commits(run)[0]?.at);
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

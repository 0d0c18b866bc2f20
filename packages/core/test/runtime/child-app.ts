// Runs fixtures/word-count-app.ts as a real child process, so tests can SIGKILL, SIGSTOP and
// restart it, and collects the JSON events it reports.
import { type ChildProcess, spawn } from 'node:child_process';
import { appendFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { bundleEntry } from '../../../../scripts/test/bundle.ts';

/** Call once (e.g. in beforeAll) before starting ChildApps: compiles the fixture app. */
export async function prepareChildApp(fixture = 'word-count-app.ts'): Promise<void> {
  script = await bundleEntry(join(import.meta.dirname, 'fixtures', fixture));
}
let script: string | undefined;
let children = 0;

export interface AppEvent {
  event: string;
  /** Which start() of this ChildApp reported it (the pid is tsx's child, not ours). */
  run: number;
  pid: number;
  state?: string;
  metrics?: Record<string, number>;
  store?: string;
  topic?: string;
  partition?: number;
  start?: number;
  end?: number;
  total?: number;
}

export class ChildApp {
  readonly events: AppEvent[] = [];
  private child?: ChildProcess;
  private exited?: Promise<number | null>;
  private run = 0;
  stderr = '';
  /** The child's whole log (all runs), kept on disk so that a failed test can point to it. */
  readonly logFile: string;

  constructor(readonly env: Record<string, string>) {
    const dir = join(tmpdir(), 'kstreams-child-logs');
    mkdirSync(dir, { recursive: true });
    this.logFile = join(dir, `${env.APPLICATION_ID ?? 'app'}-${process.pid}-${++children}.log`);
  }

  start(): this {
    const run = ++this.run;
    if (!script) throw new Error('call prepareChildApp() before starting a ChildApp');
    const child = spawn(process.execPath, [script], {
      env: { ...process.env, ...this.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      try {
        this.events.push({ ...(JSON.parse(line) as AppEvent), run });
      } catch {
        // not an event line
      }
    });
    child.stderr!.on('data', (d: Buffer) => {
      this.stderr = (this.stderr + d.toString()).slice(-20_000);
      appendFileSync(this.logFile, d);
    });
    return this;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get alive(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** The latest state the app reported since it was last (re)started. */
  get state(): string | undefined {
    return this.events.filter((e) => e.run === this.run && e.state).at(-1)?.state;
  }

  eventsOfThisRun(name: string): AppEvent[] {
    return this.events.filter((e) => e.run === this.run && e.event === name);
  }

  latestMetrics(): Record<string, number> | undefined {
    return this.events.filter((e) => e.run === this.run && e.metrics).at(-1)?.metrics;
  }

  signal(sig: NodeJS.Signals): void {
    this.child?.kill(sig);
  }

  async kill(): Promise<void> {
    if (!this.alive) return;
    this.child!.kill('SIGKILL');
    await this.exited;
  }

  async stop(): Promise<number | null> {
    if (!this.alive) return this.child?.exitCode ?? null;
    this.child!.kill('SIGTERM');
    const timeout = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 30_000));
    const result = await Promise.race([this.exited!, timeout]);
    if (result === 'timeout') {
      await this.kill();
      return null;
    }
    return result;
  }
}

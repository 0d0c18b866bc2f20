// Runs fixtures/word-count-app.ts as a real child process, so tests can SIGKILL, SIGSTOP and
// restart it, and collects the JSON events it reports.
import { type ChildProcess, spawn } from 'node:child_process';
import { appendFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { beforeAll } from 'vitest';
import { bundleEntry } from '../../../../scripts/test/bundle.ts';
import { stopAfterEach, tempStateDir, testBrokers } from './kafka-helpers.ts';

/** Call once (e.g. in beforeAll) before starting ChildApps: compiles the fixture app. */
export async function prepareChildApp(fixture = 'word-count-app.ts'): Promise<void> {
  script = await bundleEntry(join(import.meta.dirname, 'fixtures', fixture));
}
let script: string | undefined;
let children = 0;

/**
 * The child apps of a test file: the fixture compiled before its tests, and every app `create`d
 * killed after each test. Call at the top of the file.
 */
export function childAppsForThisFile(fixture?: string) {
  beforeAll(() => prepareChildApp(fixture));
  const apps = stopAfterEach((app: ChildApp) => app.kill());
  return {
    /** A ChildApp (not started) on the test broker with a state directory of its own unless `env` names one. */
    create(env: Record<string, string>): ChildApp {
      const app = new ChildApp({ KAFKA_BROKERS: testBrokers().join(','), STATE_DIR: tempStateDir(), ...env });
      apps.push(app);
      return app;
    },
  };
}

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
  /** The standby tasks the instance ran (metrics events). */
  standbyTasks?: string[];
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

/** A pause of `min` ms plus up to `spread` ms more, drawn from the test's seeded generator. */
export type Pause = readonly [min: number, spread: number];

/**
 * The crash tests' chaos: `rounds` times, after a `pause`, SIGKILLs a random one of `apps` and
 * starts it again (same state directory, as after a crash) after `down`. Draws from `rand` in
 * that order (pause, victim, down), so that a seed gives the same schedule. Returns the kills.
 */
export async function killAndRestart(
  apps: ChildApp[],
  rand: () => number,
  { rounds, pause, down }: { rounds: number; pause: Pause; down: Pause },
): Promise<number> {
  const sleep = ([min, spread]: Pause) => new Promise((r) => setTimeout(r, min + rand() * spread));
  let kills = 0;
  for (let round = 0; round < rounds; round++) {
    await sleep(pause);
    const victim = apps[Math.floor(rand() * apps.length)]!;
    await victim.kill();
    kills++;
    await sleep(down);
    victim.start();
  }
  return kills;
}

// The lab's child processes (a producer, a copier, a kstreams app): started from a bundle with
// their options in the environment, reporting JSON lines on stdout, SIGKILLed when a scenario says.
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { bundleEntry } from '../../../scripts/test/bundle.ts';

export type ChildKind = 'producer' | 'copier' | 'streams';

export interface ChildEvent {
  event: string;
  [field: string]: unknown;
}

const ENTRIES: Record<ChildKind, string> = {
  producer: 'producer-child.ts',
  copier: 'copier-child.ts',
  streams: 'streams-child.ts',
};

/** Compiles the child entry points once per process (esbuild), so each start takes milliseconds. */
export function prepareChildren(): Promise<string[]> {
  return Promise.all(
    Object.values(ENTRIES).map((e) => bundleEntry(join(import.meta.dirname, 'children', e))),
  );
}

export class LabChild {
  readonly events: ChildEvent[] = [];
  private child?: ChildProcess;
  private exited?: Promise<number | null>;
  private waiters: Array<() => void> = [];
  stderr = '';

  constructor(
    readonly kind: ChildKind,
    readonly options: object,
  ) {}

  async start(): Promise<this> {
    const script = await bundleEntry(join(import.meta.dirname, 'children', ENTRIES[this.kind]));
    const child = spawn(process.execPath, [script], {
      env: { ...process.env, LAB_CHILD: JSON.stringify(this.options) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      try {
        this.events.push(JSON.parse(line) as ChildEvent);
      } catch {
        return;
      }
      for (const w of this.waiters.splice(0)) w();
    });
    child.stderr!.on('data', (d: Buffer) => {
      this.stderr = (this.stderr + d.toString()).slice(-10_000);
    });
    void this.exited.then(() => {
      for (const w of this.waiters.splice(0)) w();
    });
    return this;
  }

  get alive(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  last(event: string): ChildEvent | undefined {
    return this.events.filter((e) => e.event === event).at(-1);
  }

  /** Resolves with the first event that `match` accepts; rejects if the child exits or time runs out. */
  async waitFor(match: (e: ChildEvent) => boolean, timeoutMs: number, what: string): Promise<ChildEvent> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.events.find(match);
      if (found) return found;
      if (!this.alive)
        throw new Error(`${this.kind} child exited before ${what}: ${this.stderr.slice(-2000)}`);
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (${this.kind} child)`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.min(left, 200));
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  async exit(timeoutMs: number): Promise<number | null> {
    const timeout = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), timeoutMs).unref());
    const code = await Promise.race([this.exited!, timeout]);
    if (code === 'timeout') throw new Error(`${this.kind} child did not finish in ${timeoutMs} ms`);
    return code;
  }

  async kill(): Promise<void> {
    if (!this.alive) return;
    this.child!.kill('SIGKILL');
    await this.exited;
  }
}

/** For the children: one JSON line on stdout. */
export function report(event: string, fields: object = {}): void {
  process.stdout.write(`${JSON.stringify({ event, ...fields })}\n`);
}

/** For the children: their options, and a kafkajs socketFactory through the lab's proxy. */
export function childOptions<T>(): T {
  const raw = process.env.LAB_CHILD;
  if (!raw) throw new Error('LAB_CHILD is not set: this script is started by the lab');
  return JSON.parse(raw) as T;
}

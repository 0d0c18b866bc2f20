// Example apps as child processes for the integration tests: started through tsx with flags,
// their output kept (and written to a file, as vitest may cut a failure's message short).
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const root = join(import.meta.dirname, '..', '..', '..');
const LOG_DIR = join(tmpdir(), 'kstreams-child-logs');

export interface Instance {
  child: ChildProcess;
  port: number;
  output: string[];
  exited: Promise<number | null>;
}

/**
 * Starts `script` (a path from the repository root, run by tsx; or a bundle, `.mjs`, run by node
 * itself, so that a SIGKILL hits the app and not a tsx parent) with `args`; logs go to
 * `<logName>.log`, appended across restarts.
 */
export function startInstance(script: string, args: string[], port: number, logName: string): Instance {
  const [command, first] = script.endsWith('.mjs')
    ? [process.execPath, script]
    : [join(root, 'node_modules', '.bin', 'tsx'), script];
  const child = spawn(command, [first, ...args, '--port', String(port)], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, LOG_LEVEL: 'info' },
  });
  const out: string[] = [];
  mkdirSync(LOG_DIR, { recursive: true });
  const log = createWriteStream(join(LOG_DIR, `${logName}.log`), { flags: 'a' });
  for (const stream of [child.stdout, child.stderr]) {
    stream?.on('data', (d: Buffer) => {
      out.push(d.toString());
      log.write(d);
    });
  }
  child.once('exit', () => log.end());
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, port, output: out, exited };
}

export function logsOf(instances: Instance[]): string {
  return `--- instance logs ---\n${instances.map((i) => i.output.join('')).join('\n')}`;
}

export async function getJson(
  port: number,
  path: string,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(10_000) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** Retries `attempt` every 500 ms until it gives a value; a timeout reports the last error. */
export async function eventually<T>(
  what: string,
  timeoutMs: number,
  attempt: () => Promise<T | undefined>,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await attempt();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline)
      throw new Error(`${what} did not happen within ${timeoutMs} ms (${String(last)})`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** Waits until every instance answers /health with RUNNING (it has joined and got its tasks). */
export async function allRunning(instances: Instance[], timeoutMs = 120_000): Promise<void> {
  for (const instance of instances) {
    await eventually(`instance on port ${instance.port} RUNNING`, timeoutMs, async () => {
      if (instance.child.exitCode !== null) throw new Error(`exited with ${instance.child.exitCode}`);
      const health = await getJson(instance.port, '/health');
      // Thrown, so that a timeout reports the state the instance was last seen in.
      if (health.body.status !== 'RUNNING') throw new Error(`status ${String(health.body.status)}`);
      return health;
    }).catch((error) => {
      throw new Error(`${error.message}\n${logsOf(instances)}`);
    });
  }
}

/** SIGKILLs what still runs and waits for the exits. */
export async function killAll(instances: Instance[]): Promise<void> {
  for (const instance of instances) {
    if (instance.child.exitCode === null && instance.child.signalCode === null)
      instance.child.kill('SIGKILL');
    await instance.exited;
  }
}

// The benchmark's HTTP client and the service it calls: one undici Pool of keep-alive
// connections (as an app calling one service would use), counting answers and timing the first
// call and the last answer of a variant.
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';

export interface Served {
  count: number;
  first: number;
  last: number;
}

export interface Service {
  url: string;
  served: Served;
  /** GETs `/<value>`; resolves with the body. */
  call(value: string, signal?: AbortSignal): Promise<string>;
  reset(): void;
  /** The service process's CPU seconds so far (user + system). */
  cpuSeconds(): Promise<number>;
  close(): Promise<void>;
}

/**
 * Starts the service (./service.ts) in a child process and a pool of up to `connections`
 * keep-alive connections to it. On this shared 2-core machine (2026-12-06) undici's Pool reached
 * about 8,000 calls/s with 4,000 calls at once against node:http's Agent's 3,300 (1,000 sockets),
 * the client's CPU being the limit in both.
 */
export async function startService(connections: number): Promise<Service> {
  const child: ChildProcess = fork(fileURLToPath(new URL('./service.ts', import.meta.url)), {
    execArgv: ['--import', 'tsx'],
    stdio: 'inherit',
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m) => resolve(Number(m)));
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the HTTP service exited with ${code}`)));
  });
  const url = `http://127.0.0.1:${port}`;
  const pool = new Pool(url, { connections, keepAliveTimeout: 60_000 });
  const served: Served = { count: 0, first: 0, last: 0 };
  return {
    url,
    served,
    async call(value, signal) {
      if (served.first === 0) served.first = performance.now();
      const response = await pool.request({
        path: `/${value}`,
        method: 'GET',
        ...(signal ? { signal } : {}),
      });
      const body = await response.body.text();
      served.count += 1;
      served.last = performance.now();
      return body;
    },
    reset() {
      Object.assign(served, { count: 0, first: 0, last: 0 });
    },
    cpuSeconds() {
      return new Promise((resolve) => {
        child.once('message', (m) => resolve((m as { cpuMicros: number }).cpuMicros / 1e6));
        child.send('cpu');
      });
    },
    async close() {
      await pool.destroy();
      child.disconnect();
      child.kill();
    },
  };
}

/**
 * The ceiling of the HTTP layer alone: `total` calls, `concurrency` at once, no Kafka, no kstreams;
 * each call with its own AbortSignal, as the app's calls pass theirs.
 */
export async function httpOnly(service: Service, total: number, concurrency: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < total) await service.call(`h${next++}`, new AbortController().signal);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, worker));
}

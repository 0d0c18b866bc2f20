// The benchmark's HTTP client and the service it calls: one undici Pool of keep-alive
// connections (as an app calling one service would use), counting answers and timing the first
// call and the last answer of a variant.
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type Dispatcher, Pool } from 'undici';

export interface Served {
  count: number;
  first: number;
  last: number;
}

export interface Service {
  url: string;
  served: Served;
  /** GETs `/<value>`; resolves with the body. */
  call(value: string, abortable?: Abortable): Promise<string>;
  reset(): void;
  /** The service process's CPU seconds so far (user + system). */
  cpuSeconds(): Promise<number>;
  close(): Promise<void>;
}

/** What a call can be aborted through: kstreams' AsyncCall has `onAbort`. */
export interface Abortable {
  onAbort(listener: (reason: unknown) => void): void;
}

/**
 * One call's undici dispatch handler: collects the body as text, aborted through the call's
 * `onAbort`. Dispatch instead of `pool.request`: request() wraps every answer in a body stream (a
 * Readable) and its promises, 60-68 µs of the app's CPU per call against 27-43 µs with this
 * handler (2026-12-06, 40,000 calls, 4,000 at once, same pool). `onAbort` instead of a listener on
 * `call.signal`: adding and removing an 'abort' listener on an AbortSignal took about 30 µs per
 * call on Node 20 (500 connections, 40,000 calls: 64-66 µs against 33-37 µs), and the HTTP
 * client's CPU is what bounds async-1000 on this machine.
 */
class BodyText implements Dispatcher.DispatchHandler {
  private chunks: Buffer[] = [];
  private controller: Dispatcher.DispatchController | undefined;
  private aborted = false;
  private reason: unknown;
  constructor(
    private readonly resolve: (body: string) => void,
    private readonly reject: (error: unknown) => void,
    abortable: Abortable | undefined,
  ) {
    abortable?.onAbort((reason) => {
      this.aborted = true;
      this.reason = reason;
      this.controller?.abort(reason as Error);
    });
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.aborted) controller.abort(this.reason as Error);
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number): void {
    if (statusCode !== 200) this.reject(new Error(`the service answered ${statusCode}`));
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.chunks.push(chunk);
  }

  onResponseEnd(): void {
    const { chunks } = this;
    this.resolve(chunks.length === 1 ? chunks[0]!.toString() : Buffer.concat(chunks).toString());
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.reject(error);
  }
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
    call(value, abortable) {
      if (served.first === 0) served.first = performance.now();
      return new Promise<string>((resolve, reject) => {
        pool.dispatch(
          { origin: url, path: `/${value}`, method: 'GET' },
          new BodyText(resolve, reject, abortable),
        );
      }).then((body) => {
        served.count += 1;
        served.last = performance.now();
        return body;
      });
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

/** A stand-in for an AsyncCall's onAbort: keeps the listener; nothing aborts these calls. */
class CallAbort implements Abortable {
  listener: ((reason: unknown) => void) | undefined;
  onAbort(listener: (reason: unknown) => void): void {
    this.listener = listener;
  }
}

/**
 * The ceiling of the HTTP layer alone: `total` calls, `concurrency` at once, no Kafka, no kstreams;
 * each call with an abort of its own, as the app's calls pass theirs.
 */
export async function httpOnly(service: Service, total: number, concurrency: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < total) await service.call(`h${next++}`, new CallAbort());
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, worker));
}

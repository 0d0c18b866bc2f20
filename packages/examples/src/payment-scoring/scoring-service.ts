// A stand-in for a fraud-scoring HTTP API, so that the example runs anywhere: POST /score with a
// payment (`<customer>,<amount>`) answers `{"score":..,"decision":..}` after `delayMs`, as a real
// service would after its own work. Deterministic, so that tests can check every result.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScoringService {
  url: string;
  /** Requests answered so far. */
  readonly answered: number;
  close(): Promise<void>;
}

/** The service's answer for a payment: amounts over 1,000 are sent to review. */
export function scorePayment(payment: string): { score: number; decision: 'approve' | 'review' } {
  const amount = Number(payment.split(',')[1]);
  if (!Number.isFinite(amount)) throw new Error(`not a payment "<customer>,<amount>": ${payment}`);
  const score = Math.min(99, Math.round(amount / 20));
  return { score, decision: amount > 1_000 ? 'review' : 'approve' };
}

export async function startScoringService(options: {
  delayMs: number;
  port?: number;
}): Promise<ScoringService> {
  let answered = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      body += chunk;
    });
    req.on('end', () => {
      setTimeout(() => {
        answered += 1;
        try {
          res.setHeader('content-type', 'application/json');
          res.end(JSON.stringify(scorePayment(body)));
        } catch (error) {
          res.statusCode = 400;
          res.end(JSON.stringify({ error: (error as Error).message }));
        }
      }, options.delayMs);
    });
  });
  server.keepAliveTimeout = 60_000;
  // A deep accept queue: a topology starts up to maxInFlight calls per task at once, each on a new
  // connection at first; with Node's default of 511 the surplus SYNs were dropped and retried a
  // second later, past a 2 s timeout on a loaded machine (2026-12-06).
  await new Promise<void>((resolve) =>
    server.listen({ port: options.port ?? 0, host: '127.0.0.1', backlog: 4_096 }, resolve),
  );
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get answered() {
      return answered;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

// The query API over node:http: GET /counts/:word, GET /counts?top=N, GET /health.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { FORWARDED_HEADER, MAX_TOP, type Reply, type WordCountQueries } from './queries.ts';

export const DEFAULT_TOP = 10;

function problem(status: number, error: string, message: string): Reply {
  return { status, body: { error, message } };
}

const ROUTES = 'GET /counts/:word, GET /counts?top=N, GET /health';

/** Parses `top`; a string means a 400 with that explanation. */
export function parseTop(raw: string | null): number | string {
  if (raw === null) return DEFAULT_TOP;
  if (!/^\d+$/.test(raw)) {
    return `top must be a whole number from 1 to ${MAX_TOP}, got ${JSON.stringify(raw)}`;
  }
  const n = Number(raw);
  if (n < 1 || n > MAX_TOP) return `top must be from 1 to ${MAX_TOP}, got ${n}`;
  return n;
}

/** Routes one request to the queries. Pure apart from the queries, so it is tested without a socket. */
export async function route(
  queries: WordCountQueries,
  method: string,
  rawUrl: string,
  headers: IncomingHttpHeaders = {},
): Promise<Reply> {
  const url = new URL(rawUrl, 'http://localhost');
  const path = url.pathname.replace(/\/+$/, '') || '/';
  const known = path === '/health' || path === '/counts' || path.startsWith('/counts/');
  if (!known) return problem(404, 'not_found', `no route for ${url.pathname}; the routes are ${ROUTES}`);
  if (method !== 'GET') {
    return {
      ...problem(405, 'method_not_allowed', `${method} is not supported; use GET`),
      headers: { allow: 'GET' },
    };
  }
  if (path === '/health') return queries.health();
  if (path === '/counts') {
    const top = parseTop(url.searchParams.get('top'));
    if (typeof top === 'string') return problem(400, 'bad_request', top);
    const scope = url.searchParams.get('scope') ?? 'all';
    if (scope === 'local') return queries.localTop(top);
    if (scope !== 'all') {
      return problem(
        400,
        'bad_request',
        `scope must be all (every instance) or local (this one), got ${JSON.stringify(scope)}`,
      );
    }
    return queries.top(top);
  }
  let word: string;
  try {
    word = decodeURIComponent(path.slice('/counts/'.length));
  } catch {
    return problem(400, 'bad_request', `the word in ${url.pathname} is not valid percent-encoded UTF-8`);
  }
  if (word.includes('/'))
    return problem(404, 'not_found', `no route for ${url.pathname}; the routes are ${ROUTES}`);
  // The app counts lower-cased words, split on /\W+/: anything else can never have a count.
  if (!/^\w+$/.test(word)) {
    return problem(
      400,
      'bad_request',
      `a word is letters, digits and "_" only (lines are split on /\\W+/), got ${JSON.stringify(word)}`,
    );
  }
  return queries.count(word.toLowerCase(), headers[FORWARDED_HEADER] !== undefined);
}

export interface QueryServer {
  readonly server: Server;
  readonly port: number;
  close(): Promise<void>;
}

/** Listens on `port` (0: a free one) and answers with `route`; a throw becomes a 500 with its message. */
export async function startQueryServer(
  port: number,
  queries: () => WordCountQueries | undefined,
  logger: Logger,
): Promise<QueryServer> {
  const server = createServer((req, res) => {
    const current = queries();
    const replied = current
      ? route(current, req.method ?? 'GET', req.url ?? '/', req.headers)
      : Promise.resolve<Reply>({
          ...problem(503, 'starting', 'the app is starting; retry in a moment'),
          headers: { 'retry-after': '1' },
        });
    replied
      .catch((error: Error): Reply => {
        logger.error({ err: error, url: req.url }, 'query failed');
        return problem(500, 'internal_error', error.message);
      })
      .then((reply) => {
        res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
        res.end(`${JSON.stringify(reply.body)}\n`);
      });
  });
  // Idle keep-alive sockets would hold close() open for their whole timeout.
  server.keepAliveTimeout = 1_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    server,
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

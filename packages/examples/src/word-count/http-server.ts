// The word-count service's HTTP server, on fastify: the @kstreams/http plugin (/health, /metrics,
// /status, the status page at /, /stores/...) and the example's own queries, GET /counts/:word
// (answered by the owner of the word, through the plugin's forwarding) and GET /counts?top=N (the
// top N merged across instances).
import { type KafkaStreams, Serdes } from '@kstreams/core';
import { ownedHere, runningApp } from '@kstreams/http';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Logger } from 'pino';
import { exampleServer } from '../common/http.ts';
import { type HttpServer, listen } from '../common/service.ts';
import { MAX_TOP, type Reply, type WordCountQueries } from './queries.ts';
import { COUNTS_STORE } from './topology.ts';

export const DEFAULT_TOP = 10;

const ROUTES =
  'GET /counts/:word, GET /counts?top=N, GET /health, GET /metrics, GET /status, GET /stores/counts/keys/:word, GET /';

function send(reply: FastifyReply, r: Reply) {
  return reply
    .code(r.status)
    .headers(r.headers ?? {})
    .send(r.body);
}

function problem(status: number, error: string, message: string): Reply {
  return { status, body: { error, message } };
}

/** Parses `top`; a string means a 400 with that explanation. */
export function parseTop(raw: string | undefined): number | string {
  if (raw === undefined) return DEFAULT_TOP;
  if (!/^\d+$/.test(raw)) {
    return `top must be a whole number from 1 to ${MAX_TOP}, got ${JSON.stringify(raw)}`;
  }
  const n = Number(raw);
  if (n < 1 || n > MAX_TOP) return `top must be from 1 to ${MAX_TOP}, got ${n}`;
  return n;
}

const STARTING: Reply = {
  ...problem(503, 'starting', 'the app is starting; retry in a moment'),
  headers: { 'retry-after': '1' },
};

/** The server with its routes, not yet listening (tests call `inject`). */
export async function buildQueryServer(
  queries: () => WordCountQueries | undefined,
  app: () => KafkaStreams | undefined,
  logger: Logger,
): Promise<FastifyInstance> {
  const fastify = await exampleServer(app, logger, ROUTES);

  fastify.get<{ Querystring: { top?: string; scope?: string } }>('/counts', async (req, reply) => {
    const q = queries();
    if (!q) return send(reply, STARTING);
    const top = parseTop(req.query.top);
    if (typeof top === 'string') return send(reply, problem(400, 'bad_request', top));
    const scope = req.query.scope ?? 'all';
    if (scope === 'local') return send(reply, await q.localTop(top));
    if (scope !== 'all') {
      const message = `scope must be all (every instance) or local (this one), got ${JSON.stringify(scope)}`;
      return send(reply, problem(400, 'bad_request', message));
    }
    return send(reply, await q.top(top));
  });

  fastify.get<{ Params: { word: string } }>('/counts/:word', async (req, reply) => {
    const q = queries();
    if (!q) return send(reply, STARTING);
    const word = req.params.word;
    // The app counts lower-cased words, split on /\W+/: anything else can never have a count.
    if (!/^\w+$/.test(word)) {
      const message = `a word is letters, digits and "_" only (lines are split on /\\W+/), got ${JSON.stringify(word)}`;
      return send(reply, problem(400, 'bad_request', message));
    }
    const running = runningApp(app, reply);
    if (!running) return reply;
    const key = word.toLowerCase();
    const meta = await ownedHere(running, req, reply, {
      store: COUNTS_STORE,
      key,
      keySerde: Serdes.String(),
    });
    if (!meta) return reply;
    return send(reply, q.localCount(key, meta.partition));
  });

  fastify.route({
    method: ['POST', 'PUT', 'PATCH', 'DELETE'],
    url: '/counts/*',
    handler: (req, reply) =>
      send(reply, {
        ...problem(405, 'method_not_allowed', `${req.method} is not supported; use GET`),
        headers: { allow: 'GET' },
      }),
  });
  return fastify;
}

export type QueryServer = HttpServer;

/** Listens on `port` (0: a free one); a throw in a route becomes a 500 with its message. */
export async function startQueryServer(
  port: number,
  queries: () => WordCountQueries | undefined,
  app: () => KafkaStreams | undefined,
  logger: Logger,
): Promise<QueryServer> {
  return listen(await buildQueryServer(queries, app, logger), port);
}

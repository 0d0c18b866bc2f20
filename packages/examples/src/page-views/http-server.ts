// The page-views service's HTTP server: the @kstreams/http plugin (with its generic
// /stores/:store/windows/:key and /stores/:store/sessions/:key) and a user's minutes and sessions,
// GET /users/:user/windows?from&to and GET /users/:user/sessions?from&to, answered by the instance
// that owns the user (forwarded there once when it is another).
import { type KafkaStreams, QueryableStoreTypes, Serdes } from '@kstreams/core';
import { ownedHere, parseRange, runningApp, sessionsOf, windowsOf } from '@kstreams/http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { exampleServer } from '../common/http.ts';
import { SESSIONS_STORE, type Session, VIEWS_STORE } from './topology.ts';

const ROUTES =
  'GET /users/:user/windows?from&to, GET /users/:user/sessions?from&to, GET /stores/views-per-minute/windows/:user, ' +
  'GET /stores/sessions/sessions/:user, GET /health, GET /metrics, GET /status, GET /';

type UserRequest = FastifyRequest<{ Params: { user: string }; Querystring: { from?: string; to?: string } }>;

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The app, the time range and the metadata of a user this instance owns; undefined once a reply
 * (400, 503, or the owner's answer) has been sent.
 */
async function forUser(req: UserRequest, reply: FastifyReply, app: () => KafkaStreams | undefined) {
  const range = parseRange(req.query);
  if (typeof range === 'string') {
    reply.code(400).send({ error: 'bad_request', message: range });
    return undefined;
  }
  const running = runningApp(app, reply);
  if (!running) return undefined;
  const user = req.params.user;
  // Both stores hang off the same grouped stream: a user's minutes and sessions share a partition.
  const meta = await ownedHere(running, req, reply, {
    store: VIEWS_STORE,
    key: user,
    keySerde: Serdes.String(),
  });
  if (!meta) return undefined;
  return { app: running, user, range, where: { partition: meta.partition, host: meta.host ?? null } };
}

/** The server with its routes, not yet listening (tests call `inject`). */
export async function buildPageViewsServer(
  app: () => KafkaStreams | undefined,
  logger: Logger,
): Promise<FastifyInstance> {
  const fastify = await exampleServer(app, logger, ROUTES);
  fastify.get('/users/:user/windows', async (req: UserRequest, reply) => {
    const q = await forUser(req, reply, app);
    if (!q) return reply;
    const store = q.app.store(VIEWS_STORE, QueryableStoreTypes.windowStore<string, number>());
    const windows = await windowsOf(store, q.user, q.range.from, q.range.to);
    return {
      user: q.user,
      ...q.range,
      windows: windows.map((w) => ({ start: w.start, end: w.end, minute: iso(w.start), views: w.value })),
      ...q.where,
    };
  });
  fastify.get('/users/:user/sessions', async (req: UserRequest, reply) => {
    const q = await forUser(req, reply, app);
    if (!q) return reply;
    const store = q.app.store(SESSIONS_STORE, QueryableStoreTypes.sessionStore<string, Session>());
    const sessions = await sessionsOf(store, q.user, q.range.from, q.range.to);
    return {
      user: q.user,
      ...q.range,
      sessions: sessions.map((s) => ({
        start: s.start,
        end: s.end,
        from: iso(s.start),
        to: iso(s.end),
        ...(s.value as Session),
      })),
      ...q.where,
    };
  });
  return fastify;
}

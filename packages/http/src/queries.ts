// Generic interactive queries, each answered by the instance that owns the key (forwarding.ts):
// GET /stores/:store/keys/:key (key-value), /stores/:store/windows/:key?from&to (window stores),
// /stores/:store/sessions/:key?from&to (session stores); GET /stores/:store lists this instance's
// key-value entries.
import {
  type KafkaStreams,
  QueryableStoreTypes,
  type ReadOnlySessionStore,
  type ReadOnlyWindowStore,
  type Serde,
  Serdes,
  type StoreQueryParameters,
} from '@kstreams/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ownedHere, problem, runningApp, toJson } from './forwarding.ts';

export { FORWARDED_HEADER } from './forwarding.ts';

const MAX_LIMIT = 10_000;

export interface StoreQueryOptions {
  /** The store's key serde (for the partition of a key); default: Serdes.String(). */
  keySerde?: Serde<unknown>;
  /** Turns the key of the URL into the store's key type; default: the string as it is. */
  parseKey?: (raw: string) => unknown;
}

/**
 * A time of a query string: epoch milliseconds or an ISO-8601 date-time; `fallback` when absent.
 * A string is the 400's message.
 */
export function parseTime(raw: string | undefined, name: string, fallback: number): number | string {
  if (raw === undefined || raw === '') return fallback;
  const ms = /^-?\d+$/.test(raw) ? Number(raw) : Date.parse(raw);
  if (!Number.isSafeInteger(ms))
    return `${name} must be epoch milliseconds or an ISO-8601 date-time such as 2026-01-05T10:00:00Z, got ${JSON.stringify(raw)}`;
  return ms;
}

/** `from` and `to` of a query string (default: all of time); a string is the 400's message. */
export function parseRange(query: { from?: string; to?: string }): { from: number; to: number } | string {
  const from = parseTime(query.from, 'from', 0);
  if (typeof from === 'string') return from;
  const to = parseTime(query.to, 'to', Number.MAX_SAFE_INTEGER);
  if (typeof to === 'string') return to;
  if (from > to) return `from (${from}) must not be after to (${to})`;
  return { from, to };
}

type KeyParams = { Params: { store: string; key: string }; Querystring: { from?: string; to?: string } };

/** A store of the kind asked for; undefined after a 404 naming what is wrong. */
function storeOf<S>(
  app: KafkaStreams,
  name: string,
  reply: FastifyReply,
  get: (app: KafkaStreams, name: string) => S,
): S | undefined {
  try {
    return get(app, name);
  } catch (error) {
    problem(reply, 404, 'not_found', (error as Error).message);
    return undefined;
  }
}

/** Window starts and ends of a key's windows: the end is start + size where the store knows the size. */
export async function windowsOf<K, V>(
  store: ReadOnlyWindowStore<K, V>,
  key: K,
  from: number,
  to: number,
): Promise<Array<{ start: number; end: number | null; value: unknown }>> {
  const windows = [];
  for await (const { timestamp, value } of store.fetch(key, from, to)) {
    const end = store.windowSizeMs === undefined ? null : timestamp + store.windowSizeMs;
    windows.push({ start: timestamp, end, value: toJson(value) });
  }
  return windows;
}

/** A key's sessions that end at or after `from` and start at or before `to`, oldest first. */
export async function sessionsOf<K, V>(
  store: ReadOnlySessionStore<K, V>,
  key: K,
  from: number,
  to: number,
): Promise<Array<{ start: number; end: number; value: unknown }>> {
  const sessions = [];
  for await (const { key: s, value } of store.findSessions(key, from, to)) {
    sessions.push({ start: s.start, end: s.end, value: toJson(value) });
  }
  return sessions;
}

export function registerStoreQueries(
  fastify: FastifyInstance,
  current: () => KafkaStreams | undefined,
  stores: Record<string, StoreQueryOptions> = {},
): void {
  /** The common part of the per-key routes: the app, the store, the key, and who owns it. */
  async function keyQuery<S>(
    req: FastifyRequest<KeyParams>,
    reply: FastifyReply,
    get: (app: KafkaStreams, name: string, parameters?: StoreQueryParameters) => S,
  ) {
    const app = runningApp(current, reply);
    if (!app) return undefined;
    const { store: name, key: raw } = req.params;
    const active = storeOf(app, name, reply, get);
    if (!active) return undefined;
    const options = stores[name] ?? {};
    const key = options.parseKey ? options.parseKey(raw) : raw;
    const meta = await ownedHere(app, req, reply, {
      store: name,
      key,
      keySerde: options.keySerde ?? Serdes.String(),
      allowStale: true,
    });
    if (!meta) return undefined;
    // The active is down: this instance's standby answers, and says so.
    const store = meta.stale ? get(app, name, { enableStaleStores: true }) : active;
    const where = { partition: meta.partition, host: meta.host ?? null };
    const stale = meta.stale ? { stale: true, answeredBy: app.config.applicationServer ?? null } : {};
    return { store, key, raw, name, where: { ...where, ...stale } };
  }

  fastify.get<KeyParams>('/stores/:store/keys/:key', async (req, reply) => {
    const q = await keyQuery(req, reply, (app, name, p) =>
      app.store(name, QueryableStoreTypes.keyValueStore(), p),
    );
    if (!q) return reply;
    const value = q.store.get(q.key);
    if (value === undefined)
      return problem(
        reply,
        404,
        'not_found',
        `no value for key ${JSON.stringify(q.raw)} in store '${q.name}'`,
      );
    return { store: q.name, key: q.raw, value: toJson(value), ...q.where };
  });

  fastify.get<KeyParams>('/stores/:store/windows/:key', async (req, reply) => {
    const range = parseRange(req.query);
    if (typeof range === 'string') return problem(reply, 400, 'bad_request', range);
    const q = await keyQuery(req, reply, (app, name, p) =>
      app.store(name, QueryableStoreTypes.windowStore(), p),
    );
    if (!q) return reply;
    const windows = await windowsOf(q.store, q.key, range.from, range.to);
    return { store: q.name, key: q.raw, ...range, windows, ...q.where };
  });

  fastify.get<KeyParams>('/stores/:store/sessions/:key', async (req, reply) => {
    const range = parseRange(req.query);
    if (typeof range === 'string') return problem(reply, 400, 'bad_request', range);
    const q = await keyQuery(req, reply, (app, name, p) =>
      app.store(name, QueryableStoreTypes.sessionStore(), p),
    );
    if (!q) return reply;
    const sessions = await sessionsOf(q.store, q.key, range.from, range.to);
    return { store: q.name, key: q.raw, ...range, sessions, ...q.where };
  });

  fastify.get<{ Params: { store: string }; Querystring: { limit?: string } }>(
    '/stores/:store',
    async (req, reply) => {
      const app = current();
      if (!app) return problem(reply, 503, 'starting', 'the app is not created yet');
      const raw = req.query.limit ?? '100';
      const limit = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
      if (!(limit >= 1 && limit <= MAX_LIMIT))
        return problem(
          reply,
          400,
          'bad_request',
          `limit must be a whole number from 1 to ${MAX_LIMIT}, got ${JSON.stringify(raw)}`,
        );
      const store = storeOf(app, req.params.store, reply, (a, name) => a.store(name));
      if (!store) return reply;
      const entries: Array<{ key: unknown; value: unknown }> = [];
      for await (const e of store.all()) {
        entries.push({ key: toJson(e.key), value: toJson(e.value) });
        if (entries.length >= limit) break;
      }
      return { store: req.params.store, host: app.config.applicationServer ?? null, entries };
    },
  );
}

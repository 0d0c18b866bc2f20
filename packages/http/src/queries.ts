// Generic interactive queries over a key-value store: GET /stores/:store/keys/:key answers from the
// local task that owns the key, or forwards once to the instance that owns it (its
// applicationServer, from the group); GET /stores/:store lists this instance's entries.
import { type KafkaStreams, type Serde, Serdes } from '@kstreams/core';
import type { FastifyInstance, FastifyReply } from 'fastify';

export const FORWARDED_HEADER = 'x-kstreams-forwarded';
const MAX_LIMIT = 10_000;

export interface StoreQueryOptions {
  /** The store's key serde (for the partition of a key); default: Serdes.String(). */
  keySerde?: Serde<unknown>;
  /** Turns the key of the URL into the store's key type; default: the string as it is. */
  parseKey?: (raw: string) => unknown;
}

/** JSON for store values: bigint (Serdes.Long) as a number when exact, else as a string. */
function toJson(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value, (_k, v) =>
      typeof v === 'bigint' ? (Number.isSafeInteger(Number(v)) ? Number(v) : v.toString()) : v,
    ),
  );
}

function problem(reply: FastifyReply, status: number, error: string, message: string) {
  return reply.code(status).send({ error, message });
}

export function registerStoreQueries(
  fastify: FastifyInstance,
  current: () => KafkaStreams | undefined,
  stores: Record<string, StoreQueryOptions> = {},
): void {
  const storeOf = (app: KafkaStreams, name: string, reply: FastifyReply) => {
    try {
      return app.store(name);
    } catch (error) {
      problem(reply, 404, 'not_found', (error as Error).message);
      return undefined;
    }
  };

  fastify.get<{ Params: { store: string; key: string } }>('/stores/:store/keys/:key', async (req, reply) => {
    const app = current();
    if (!app) return problem(reply, 503, 'starting', 'the app is not created yet');
    if (app.state !== 'RUNNING')
      return problem(reply, 503, 'not_running', `the app is ${app.state}; retry in a moment`);
    const { store: name, key: raw } = req.params;
    const options = stores[name] ?? {};
    const store = storeOf(app, name, reply);
    if (!store) return reply;
    const key = options.parseKey ? options.parseKey(raw) : raw;
    const meta = await app.queryMetadataForKey(name, key, options.keySerde ?? Serdes.String());
    const here = app.config.applicationServer;
    if (!meta.local) {
      if (req.headers[FORWARDED_HEADER] !== undefined || !meta.host || meta.host === here) {
        return problem(
          reply,
          503,
          'not_available',
          `task ${meta.taskId} (partition ${meta.partition}) of '${name}' runs on no reachable instance now (rebalancing?); retry`,
        );
      }
      const res = await fetch(
        `http://${meta.host}/stores/${encodeURIComponent(name)}/keys/${encodeURIComponent(raw)}`,
        {
          headers: { [FORWARDED_HEADER]: here ?? 'unknown' },
          signal: AbortSignal.timeout(5_000),
        },
      );
      return reply.code(res.status).send(await res.json());
    }
    const value = store.get(key);
    if (value === undefined)
      return problem(reply, 404, 'not_found', `no value for key ${JSON.stringify(raw)} in store '${name}'`);
    return {
      store: name,
      key: raw,
      value: toJson(value),
      partition: meta.partition,
      host: meta.host ?? null,
    };
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
      const store = storeOf(app, req.params.store, reply);
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

// IQv2 through the plugin: POST /stores/:store/query runs a StateQueryRequest on every instance
// that owns a partition asked (a key query: the key's partition; else all), each partition on its
// owner, as the per-key routes forward (forwarding.ts): once, with the forwarded header, so that an
// owner answers from its own tasks only. Partitions no instance runs now answer NOT_PRESENT.
import {
  type KafkaStreams,
  type KeyQueryMetadata,
  type PositionBound,
  type Query,
  Serdes,
  StateQueryRequest,
} from '@kstreams/core';
import type { FastifyInstance } from 'fastify';
import { FORWARDED_HEADER, problem, runningApp } from './forwarding.ts';
import type { StoreQueryOptions } from './queries.ts';
import {
  boundOf,
  DEFAULT_RESULT_LIMIT,
  keyOfQuery,
  type PartitionResultJson,
  queryOf,
  type StateQueryBody,
  stateQueryResultJson,
} from './state-query-json.ts';

const MAX_TIMEOUT_MS = 60_000;
const MAX_LIMIT = 10_000;

/** The answer of POST /stores/:store/query. */
export interface StateQueryResponse {
  store: string;
  /** partition → its result. */
  partitions: Record<string, PartitionResultJson>;
  /** The positions of all partitions merged (Kafka Streams' StateQueryResult.getPosition()). */
  position: Record<string, Record<string, number>>;
}

interface Checked {
  query: Query<unknown>;
  bound: PositionBound;
  timeoutMs: number;
  limit: number;
}

function check(body: StateQueryBody, parseKey: (k: unknown) => unknown): Checked | string {
  if (body === null || typeof body !== 'object') return 'the body must be a JSON object with a query';
  const query = queryOf(body.query, parseKey);
  if (typeof query === 'string') return query;
  const bound = boundOf(body.positionBound);
  if (typeof bound === 'string') return bound;
  const timeoutMs = body.timeoutMs ?? 0;
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 0 || timeoutMs > MAX_TIMEOUT_MS)
    return `timeoutMs must be a whole number of ms from 0 to ${MAX_TIMEOUT_MS}, got ${JSON.stringify(body.timeoutMs)}`;
  const limit = body.limit ?? DEFAULT_RESULT_LIMIT;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_LIMIT)
    return `limit must be a whole number from 1 to ${MAX_LIMIT}, got ${JSON.stringify(body.limit)}`;
  if (
    body.partitions !== undefined &&
    (!Array.isArray(body.partitions) || body.partitions.some((p) => !Number.isSafeInteger(p) || p < 0))
  )
    return `partitions must be an array of partition numbers, got ${JSON.stringify(body.partitions)}`;
  return { query, bound, timeoutMs, limit };
}

/** Answers `partitions` from this instance's tasks. */
async function local(
  app: KafkaStreams,
  store: string,
  body: StateQueryBody,
  c: Checked,
  partitions: number[],
) {
  let request = StateQueryRequest.inStore(store)
    .withQuery(c.query)
    .withPartitions(partitions)
    .withPositionBound(c.bound);
  if (body.requireActive === true) request = request.requireActive();
  const result = await app.query(request, { timeoutMs: c.timeoutMs });
  return stateQueryResultJson(result, app.config.applicationServer ?? null, c.limit);
}

function failed(
  partitions: number[],
  message: string,
  host: string | null,
): Record<string, PartitionResultJson> {
  const out: Record<string, PartitionResultJson> = {};
  for (const p of partitions)
    out[p] = { success: false, failureReason: 'NOT_PRESENT', failureMessage: message, position: {}, host };
  return out;
}

/** Asks the owner at `host` for its partitions, with the same body. */
async function remote(
  host: string,
  store: string,
  body: StateQueryBody,
  c: Checked,
  partitions: number[],
  here: string | undefined,
) {
  try {
    const res = await fetch(`http://${host}/stores/${encodeURIComponent(store)}/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [FORWARDED_HEADER]: here ?? 'unknown' },
      body: JSON.stringify({ ...body, partitions }),
      // The owner may wait timeoutMs for its bound.
      signal: AbortSignal.timeout(c.timeoutMs + 5_000),
    });
    const answer = (await res.json()) as StateQueryResponse & { message?: string };
    if (!res.ok)
      return failed(partitions, `the instance at ${host} answered ${res.status}: ${answer.message}`, host);
    return answer.partitions;
  } catch (error) {
    return failed(partitions, `the instance at ${host} did not answer: ${(error as Error).message}`, host);
  }
}

/** Which partitions to ask, and who runs each. */
async function owners(
  app: KafkaStreams,
  store: string,
  body: StateQueryBody,
  c: Checked,
  options: StoreQueryOptions,
): Promise<KeyQueryMetadata[]> {
  const key = keyOfQuery(c.query);
  if (body.partitions === undefined && key !== undefined)
    return [await app.queryMetadataForKey(store, key.key, options.keySerde ?? Serdes.String())];
  const all = await app.queryMetadataForPartitions(store);
  return body.partitions === undefined ? all : all.filter((m) => body.partitions!.includes(m.partition));
}

export function registerStateQueries(
  fastify: FastifyInstance,
  current: () => KafkaStreams | undefined,
  stores: Record<string, StoreQueryOptions> = {},
): void {
  fastify.post<{ Params: { store: string }; Body: StateQueryBody }>(
    '/stores/:store/query',
    async (req, reply) => {
      const app = runningApp(current, reply);
      if (!app) return reply;
      const store = req.params.store;
      const options = stores[store] ?? {};
      const parseKey = (k: unknown) => (typeof k === 'string' && options.parseKey ? options.parseKey(k) : k);
      const c = check(req.body, parseKey);
      if (typeof c === 'string') return problem(reply, 400, 'bad_request', c);
      const partitions: Record<string, PartitionResultJson> = {};
      try {
        if (req.headers[FORWARDED_HEADER] !== undefined) {
          // Forwarded once already: answer from this instance's tasks, whatever moved since.
          Object.assign(partitions, await local(app, store, req.body, c, req.body.partitions ?? []));
        } else {
          const byHost = new Map<string | undefined, number[]>();
          for (const m of await owners(app, store, req.body, c, options)) {
            const host = m.local ? '' : m.host;
            byHost.set(host, [...(byHost.get(host) ?? []), m.partition]);
          }
          const here = app.config.applicationServer;
          const answers = await Promise.all(
            [...byHost].map(([host, ps]) =>
              host === ''
                ? local(app, store, req.body, c, ps)
                : host === undefined || host === here
                  ? failed(ps, 'no reachable instance runs this partition now (rebalancing?); retry', null)
                  : remote(host, store, req.body, c, ps, here),
            ),
          );
          for (const a of answers) Object.assign(partitions, a);
        }
      } catch (error) {
        // An unknown store, a global one, or an app that stopped meanwhile.
        return problem(reply, 404, 'not_found', (error as Error).message);
      }
      const sorted = Object.fromEntries(
        Object.entries(partitions).sort((a, b) => Number(a[0]) - Number(b[0])),
      );
      const position: Record<string, Record<string, number>> = {};
      for (const r of Object.values(sorted))
        for (const [topic, ps] of Object.entries(r.position))
          for (const [p, offset] of Object.entries(ps)) {
            position[topic] ??= {};
            position[topic][p] = Math.max(position[topic][p] ?? -1, offset);
          }
      return { store, partitions: sorted, position } satisfies StateQueryResponse;
    },
  );
}

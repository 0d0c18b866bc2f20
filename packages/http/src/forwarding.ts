// Where a key's query is answered: by this instance when it runs the task that owns the key, else
// forwarded once to the instance that does (its applicationServer, from the group). A request that
// was forwarded already and lands on a non-owner is a 503: the assignment moved in between.
import type { KafkaStreams, KeyQueryMetadata, Serde } from '@kstreams/core';
import type { FastifyReply, FastifyRequest } from 'fastify';

export const FORWARDED_HEADER = 'x-kstreams-forwarded';

export function problem(reply: FastifyReply, status: number, error: string, message: string) {
  return reply.code(status).send({ error, message });
}

/** The app if it is RUNNING; otherwise undefined, with a 503 sent. */
export function runningApp(
  current: () => KafkaStreams | undefined,
  reply: FastifyReply,
): KafkaStreams | undefined {
  const app = current();
  if (!app) {
    problem(reply.header('retry-after', '1'), 503, 'starting', 'the app is not created yet');
    return undefined;
  }
  if (app.state !== 'RUNNING') {
    problem(
      reply.header('retry-after', '1'),
      503,
      'not_running',
      `the app is ${app.state}; retry in a moment`,
    );
    return undefined;
  }
  return app;
}

/** JSON for store values: bigint (Serdes.Long) as a number when exact, else as a string. */
export function toJson(value: unknown): unknown {
  return JSON.parse(
    JSON.stringify(value, (_k, v) =>
      typeof v === 'bigint' ? (Number.isSafeInteger(Number(v)) ? Number(v) : v.toString()) : v,
    ),
  );
}

export interface KeyLookup<K> {
  /** A store of the sub-topology that holds the key (every store there is partitioned alike). */
  store: string;
  key: K;
  keySerde: Serde<K>;
}

/**
 * The key's metadata when this instance owns it (the caller then answers from its stores);
 * otherwise undefined, after the owner's answer to the same URL, or a 503, has been sent.
 */
export async function ownedHere<K>(
  app: KafkaStreams,
  req: FastifyRequest,
  reply: FastifyReply,
  lookup: KeyLookup<K>,
): Promise<KeyQueryMetadata | undefined> {
  const meta = await app.queryMetadataForKey(lookup.store, lookup.key, lookup.keySerde);
  if (meta.local) return meta;
  const here = app.config.applicationServer;
  if (req.headers[FORWARDED_HEADER] !== undefined || !meta.host || meta.host === here) {
    problem(
      reply.header('retry-after', '1'),
      503,
      'not_available',
      `task ${meta.taskId} (partition ${meta.partition}) of '${lookup.store}' runs on no reachable instance now (rebalancing?); retry`,
    );
    return undefined;
  }
  try {
    const res = await fetch(`http://${meta.host}${req.url}`, {
      headers: { [FORWARDED_HEADER]: here ?? 'unknown' },
      signal: AbortSignal.timeout(5_000),
    });
    reply.code(res.status).send(await res.json());
  } catch (error) {
    problem(
      reply,
      502,
      'bad_gateway',
      `the instance at ${meta.host} did not answer: ${(error as Error).message}`,
    );
  }
  return undefined;
}

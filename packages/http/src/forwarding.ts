// Where a key's query is answered: by this instance when it runs the task that owns the key, else
// forwarded once to the instance that does (its applicationServer, from the group). A request that
// was forwarded already and lands on a non-owner is a 503: the assignment moved in between. With
// `allowStale`, an instance holding a standby of the task answers itself, flagged stale, when the
// active cannot answer (down, or none assigned): Kafka Streams' enableStaleStores.
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
  /**
   * When the active cannot answer and this instance has a standby of the task, answer from the
   * standby (the result has `stale: true`; read the store with `{ enableStaleStores: true }`).
   */
  allowStale?: boolean;
}

/** Where the caller answers: the task's active here, or (`stale`) a standby of it here. */
export type AnswerHere = KeyQueryMetadata & { stale?: true };

/**
 * The key's metadata when this instance owns it (the caller then answers from its stores), or
 * with `stale` when it answers from its standby (`allowStale`); otherwise undefined, after the
 * owner's answer to the same URL, or a 503, has been sent.
 */
export async function ownedHere<K>(
  app: KafkaStreams,
  req: FastifyRequest,
  reply: FastifyReply,
  lookup: KeyLookup<K>,
): Promise<AnswerHere | undefined> {
  const meta = await app.queryMetadataForKey(lookup.store, lookup.key, lookup.keySerde);
  if (meta.local) return meta;
  const here = app.config.applicationServer;
  const standbyHere = lookup.allowStale === true && here !== undefined && meta.standbyHosts.includes(here);
  if (req.headers[FORWARDED_HEADER] !== undefined || !meta.host || meta.host === here) {
    if (standbyHere) return { ...meta, stale: true };
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
    if (standbyHere) return { ...meta, stale: true };
    problem(
      reply,
      502,
      'bad_gateway',
      `the instance at ${meta.host} did not answer: ${(error as Error).message}`,
    );
  }
  return undefined;
}

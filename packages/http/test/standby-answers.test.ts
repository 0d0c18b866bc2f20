// The generic key route answers from this instance's standby when the key's active cannot answer,
// and says so; without a standby here it stays a 502 / 503. A fake app (the routing decision is
// the plugin's; the stores' stale lookup is core's, tested there) and a real fastify.
import { createServer } from 'node:net';
import type { KafkaStreams, KeyQueryMetadata, StoreQueryParameters } from '@kstreams/core';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { registerStoreQueries } from '../src/queries.ts';

const HERE = 'here:8080';

/** A port nothing listens on: connecting is refused at once (the active's instance is down). */
async function deadHost(): Promise<string> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return `127.0.0.1:${port}`;
}

function fakeApp(meta: Omit<KeyQueryMetadata, 'partition' | 'taskId' | 'local'>) {
  const asked: Array<StoreQueryParameters | undefined> = [];
  const app = {
    state: 'RUNNING',
    config: { applicationServer: HERE },
    queryMetadataForKey: async () => ({ partition: 1, taskId: '0_1', local: false, ...meta }),
    store: (_name: string, _type: unknown, parameters?: StoreQueryParameters) => {
      asked.push(parameters);
      // Only the standby copy (a stale read) has the key: this instance runs no active of it.
      return { get: (key: string) => (parameters?.enableStaleStores && key === 'kafka' ? 42 : undefined) };
    },
  } as unknown as KafkaStreams;
  return { app, asked };
}

async function get(app: KafkaStreams, url: string) {
  const fastify = Fastify();
  registerStoreQueries(fastify, () => app);
  const res = await fastify.inject({ method: 'GET', url });
  await fastify.close();
  return { status: res.statusCode, body: res.json() as Record<string, unknown> };
}

describe('a key whose active is down', () => {
  it('is answered by this instance’s standby, flagged stale', async () => {
    const { app, asked } = fakeApp({ host: await deadHost(), standbyHosts: [HERE] });
    const res = await get(app, '/stores/counts/keys/kafka');
    expect(res).toEqual({
      status: 200,
      body: {
        store: 'counts',
        key: 'kafka',
        value: 42,
        partition: 1,
        host: expect.stringMatching(/^127\.0\.0\.1:/),
        stale: true,
        answeredBy: HERE,
      },
    });
    expect(asked.at(-1)).toEqual({ enableStaleStores: true });
  });

  it('is answered by the standby when no instance runs the task (rebalancing)', async () => {
    const { app } = fakeApp({ standbyHosts: ['other:1', HERE] });
    const res = await get(app, '/stores/counts/keys/kafka');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ value: 42, host: null, stale: true });
  });

  it('is a 502 (active down) or 503 (no active) without a standby here', async () => {
    const down = fakeApp({ host: await deadHost(), standbyHosts: ['other:1'] });
    expect((await get(down.app, '/stores/counts/keys/kafka')).status).toBe(502);
    const none = fakeApp({ standbyHosts: [] });
    const res = await get(none.app, '/stores/counts/keys/kafka');
    expect(res).toMatchObject({ status: 503, body: { error: 'not_available' } });
    expect(none.asked.every((p) => p === undefined)).toBe(true);
  });
});

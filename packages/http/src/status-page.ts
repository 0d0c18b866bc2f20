// The status page at `/` and its assets, all served from this package and node_modules (mermaid's
// dist file), so the page needs no network; `/status/instances` gathers every instance's /status.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { KafkaStreams } from '@kstreams/core';
import type { FastifyInstance } from 'fastify';
import { type InstanceStatus, instanceStatus } from './status.ts';

const require = createRequire(import.meta.url);
const page = (file: string) => readFileSync(new URL(`./page/${file}`, import.meta.url), 'utf8');
const ASSETS: Record<string, { type: string; body: () => string }> = {
  'status-page.js': { type: 'text/javascript; charset=utf-8', body: () => page('status-page.js') },
  'status-page.css': { type: 'text/css; charset=utf-8', body: () => page('status-page.css') },
  'mermaid.min.js': {
    type: 'text/javascript; charset=utf-8',
    body: () => readFileSync(require.resolve('mermaid/dist/mermaid.min.js'), 'utf8'),
  },
};

export interface InstanceEntry {
  host: string | undefined;
  status?: InstanceStatus;
  error?: string;
}

/** Every live member of the group: this one from memory, the others through their /status. */
export async function allInstances(app: KafkaStreams, timeoutMs = 2_000): Promise<InstanceEntry[]> {
  const self = app.config.applicationServer;
  const members = await app.metadataForAllStreamsClients().catch(() => []);
  const hosts = [...new Set([self, ...members.map((m) => m.host)])];
  return Promise.all(
    hosts.map(async (host): Promise<InstanceEntry> => {
      if (host === self) return { host, status: instanceStatus(app) };
      if (host === undefined) return { host, error: 'a member without applicationServer' };
      try {
        const res = await fetch(`http://${host}/status`, { signal: AbortSignal.timeout(timeoutMs) });
        if (!res.ok) return { host, error: `GET /status answered ${res.status}` };
        return { host, status: (await res.json()) as InstanceStatus };
      } catch (error) {
        return { host, error: `GET http://${host}/status failed: ${(error as Error).message}` };
      }
    }),
  );
}

export function registerStatusPage(fastify: FastifyInstance, current: () => KafkaStreams | undefined): void {
  const cache = new Map<string, string>();
  fastify.get('/', async (_req, reply) => {
    reply.header('content-type', 'text/html; charset=utf-8');
    return page('index.html');
  });
  fastify.get<{ Params: { name: string } }>('/assets/:name', async (req, reply) => {
    const asset = ASSETS[req.params.name];
    if (!asset) return reply.code(404).send({ error: 'not_found', message: `no asset ${req.params.name}` });
    let body = cache.get(req.params.name);
    if (body === undefined) {
      body = asset.body();
      cache.set(req.params.name, body);
    }
    reply.header('content-type', asset.type);
    return body;
  });
  fastify.get('/status/instances', async (_req, reply) => {
    const app = current();
    if (!app) return reply.code(503).send({ error: 'starting', message: 'the app is not created yet' });
    return { applicationId: app.config.applicationId, instances: await allInstances(app) };
  });
}

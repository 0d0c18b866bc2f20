// The status page at `/` and its assets, all served from this package (mermaid's browser build
// included), so the page needs no network; `/status/instances` gathers every instance's /status.
import type { KafkaStreams } from '@kstreams/core';
import type { FastifyInstance } from 'fastify';
import { type PageAsset, readPageAsset } from './page-assets.ts';
import { type InstanceStatus, instanceStatus } from './status.ts';

const TYPES: Partial<Record<PageAsset, string>> = {
  'status-page.js': 'text/javascript; charset=utf-8',
  'broker-line.js': 'text/javascript; charset=utf-8',
  'status-page.css': 'text/css; charset=utf-8',
  'mermaid.min.js': 'text/javascript; charset=utf-8',
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
  const cache = new Map<PageAsset, Promise<string>>();
  const asset = (name: PageAsset) => {
    let body = cache.get(name);
    if (body === undefined) {
      body = readPageAsset(name);
      cache.set(name, body);
    }
    return body;
  };
  fastify.get('/', async (_req, reply) => {
    reply.header('content-type', 'text/html; charset=utf-8');
    return asset('index.html');
  });
  fastify.get<{ Params: { name: string } }>('/assets/:name', async (req, reply) => {
    const name = req.params.name as PageAsset;
    const type = Object.hasOwn(TYPES, name) ? TYPES[name] : undefined;
    if (!type) return reply.code(404).send({ error: 'not_found', message: `no asset ${req.params.name}` });
    reply.header('content-type', type);
    return asset(name);
  });
  fastify.get('/status/instances', async (_req, reply) => {
    const app = current();
    if (!app) return reply.code(503).send({ error: 'starting', message: 'the app is not created yet' });
    return { applicationId: app.config.applicationId, instances: await allInstances(app) };
  });
}

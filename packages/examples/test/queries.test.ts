import type { KafkaStreams } from '@kstreams/core';
import { type KeyQueryMetadata, partitionForKey, type ReadOnlyKeyValueStore, Serdes } from '@kstreams/core';
import { FORWARDED_HEADER } from '@kstreams/http';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../../scripts/test/free-port.ts';
import { createLogger } from '../src/common/logger.ts';
import { buildQueryServer, startQueryServer } from '../src/word-count/http-server.ts';
import {
  type PeerClient,
  probeKeys,
  type QueryableStreams,
  type Reply,
  topN,
  WordCountQueries,
} from '../src/word-count/queries.ts';

const PARTITIONS = 4;
const partitionOf = (key: string) => partitionForKey(Serdes.String().serialize(key), PARTITIONS);

/**
 * An app of which this instance ('self:1') owns `localPartitions`; the other partitions belong to
 * `owners[p]` (undefined: no owner, as during a rebalance). `counts` are this instance's store.
 */
function fakeApp(
  counts: Record<string, number>,
  localPartitions: number[],
  owners: Record<number, string | undefined> = {},
  state = 'RUNNING',
  self = 'self:1',
): QueryableStreams {
  const store: ReadOnlyKeyValueStore<string, number> = {
    get: (key) => counts[key],
    async *range() {
      yield* [];
    },
    async *all() {
      for (const [key, value] of Object.entries(counts)) yield { key, value };
    },
    approximateNumEntries: async () => Object.keys(counts).length,
  };
  return {
    state,
    // The HTTP plugin's /health reads it (a broker that always answers here).
    brokerConnectivity: () => ({ reachable: true }),
    config: { applicationServer: self },
    store: (() => store) as QueryableStreams['store'],
    async queryMetadataForKey<K>(_store: string, key: K): Promise<KeyQueryMetadata> {
      const partition = partitionOf(key as string);
      const local = localPartitions.includes(partition);
      return {
        partition,
        taskId: `1_${partition}`,
        local,
        host: local ? self : owners[partition],
        standbyHosts: [],
      };
    },
  } as QueryableStreams;
}

/** A word that the partitioner puts into `partition`. */
function wordIn(partition: number, prefix = 'w'): string {
  for (let i = 0; ; i++) if (partitionOf(`${prefix}${i}`) === partition) return `${prefix}${i}`;
}

function recordingPeer(replies: (host: string, path: string) => Reply) {
  const calls: string[] = [];
  const peer: PeerClient = async (host, path) => {
    calls.push(`${host}${path}`);
    return replies(host, path);
  };
  return { peer, calls };
}

const all = [0, 1, 2, 3];

/** A word-count server on a free port over the app that `appAt` makes for its `host:port`. */
async function listening(appAt: (self: string) => QueryableStreams) {
  let app: QueryableStreams | undefined;
  let queries: WordCountQueries | undefined;
  const server = await startQueryServer(
    0,
    () => queries,
    () => app as unknown as KafkaStreams,
    silent,
  );
  const host = `127.0.0.1:${server.port}`;
  app = appAt(host);
  queries = new WordCountQueries(app, { self: host, partitions: PARTITIONS });
  return { host, close: () => server.close() };
}
const silent = createLogger('silent', { name: 'test', tty: false });

/** One request through the server's routes (fastify's inject: no socket). */
async function route(
  q: WordCountQueries,
  method: 'GET' | 'POST',
  url: string,
  headers: Record<string, string> = {},
  app: QueryableStreams = q.app,
): Promise<Reply> {
  const server = await buildQueryServer(
    () => q,
    () => app as unknown as KafkaStreams,
    silent,
  );
  const res = await server.inject({ method, url, headers });
  await server.close();
  const reply: Reply = { status: res.statusCode, body: res.json() };
  const kept: Record<string, string> = {};
  for (const name of ['allow', 'retry-after'])
    if (res.headers[name] !== undefined) kept[name] = String(res.headers[name]);
  if (Object.keys(kept).length > 0) reply.headers = kept;
  return reply;
}

describe('GET /counts/:word', () => {
  it('answers a local word from the store', async () => {
    const word = wordIn(0);
    const q = new WordCountQueries(fakeApp({ [word]: 7 }, all), { self: 'self:1', partitions: PARTITIONS });
    expect(await route(q, 'GET', `/counts/${word}`)).toEqual({
      status: 200,
      body: { word, count: 7, partition: 0, host: 'self:1' },
    });
  });

  it('lower-cases the word, as the app does', async () => {
    const word = wordIn(1);
    const q = new WordCountQueries(fakeApp({ [word]: 3 }, all), { self: 'self:1', partitions: PARTITIONS });
    expect((await route(q, 'GET', `/counts/${word.toUpperCase()}`)).body).toMatchObject({ word, count: 3 });
  });

  it('a word never seen is a 404 with a JSON body that says so', async () => {
    const q = new WordCountQueries(fakeApp({}, all), { self: 'self:1', partitions: PARTITIONS });
    const reply = await route(q, 'GET', '/counts/zebra');
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({
      error: 'not_found',
      message: 'no count for the word "zebra": it has not been seen (yet)',
      word: 'zebra',
      partition: partitionOf('zebra'),
      host: 'self:1',
    });
  });

  it('a string that cannot be a word is a 400 that says why', async () => {
    const q = new WordCountQueries(fakeApp({}, all), { self: 'self:1', partitions: PARTITIONS });
    const reply = await route(q, 'GET', `/counts/${encodeURIComponent("don't")}`);
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({
      error: 'bad_request',
      message: 'a word is letters, digits and "_" only (lines are split on /\\W+/), got "don\'t"',
    });
    expect((await route(q, 'GET', '/counts/%E0%A4%A')).status).toBe(400);
  });

  it('forwards to the instance that owns the word (@kstreams/http), which answers from its store', async () => {
    const word = wordIn(2);
    const owner = await listening((self) => fakeApp({ [word]: 41 }, [2, 3], {}, 'RUNNING', self));
    try {
      const q = new WordCountQueries(fakeApp({}, [0, 1], { 2: owner.host, 3: owner.host }), {
        self: 'self:1',
        partitions: PARTITIONS,
      });
      expect(await route(q, 'GET', `/counts/${word.toUpperCase()}`)).toEqual({
        status: 200,
        body: { word, count: 41, partition: 2, host: owner.host },
      });
      // The owner's 404 comes back as it is.
      expect(await route(q, 'GET', `/counts/${wordIn(3)}`)).toMatchObject({
        status: 404,
        body: { error: 'not_found', word: wordIn(3), host: owner.host },
      });
    } finally {
      await owner.close();
    }
  });

  it('a forwarded request is never forwarded again, and a dead owner becomes a 502', async () => {
    const word = wordIn(3);
    // The "owner" has lost partition 3 to a third instance in between: it answers 503, not a hop.
    const moved = await listening((self) => fakeApp({}, [2], { 3: 'third:3' }, 'RUNNING', self));
    try {
      const q = new WordCountQueries(fakeApp({}, [0], { 3: moved.host }), {
        self: 'self:1',
        partitions: PARTITIONS,
      });
      const reply = await route(q, 'GET', `/counts/${word}`);
      expect(reply.status).toBe(503);
      expect((reply.body as { message: string }).message).toMatch(/^task 1_3 \(partition 3\) of 'counts'/);
    } finally {
      await moved.close();
    }
    const dead = `127.0.0.1:${await freePort()}`;
    const q = new WordCountQueries(fakeApp({}, [0], { 3: dead }), { self: 'self:1', partitions: PARTITIONS });
    const reply = await route(q, 'GET', `/counts/${word}`);
    expect(reply.status).toBe(502);
    expect((reply.body as { message: string }).message).toMatch(
      new RegExp(`^the instance at ${dead} did not answer: `),
    );
  });

  it('a request marked as forwarded, or a word owned by nobody, is a 503 with retry-after', async () => {
    const word = wordIn(3);
    const q = new WordCountQueries(fakeApp({}, [0], { 3: 'other:2' }), {
      self: 'self:1',
      partitions: PARTITIONS,
    });
    const forwarded = await route(q, 'GET', `/counts/${word}`, { [FORWARDED_HEADER]: 'x:1' });
    expect(forwarded.status).toBe(503);
    expect(forwarded.headers).toEqual({ 'retry-after': '1' });
    const orphan = new WordCountQueries(fakeApp({}, [0]), { self: 'self:1', partitions: PARTITIONS });
    const reply = await route(orphan, 'GET', `/counts/${word}`);
    expect(reply).toMatchObject({ status: 503, headers: { 'retry-after': '1' } });
    expect((reply.body as { message: string }).message).toBe(
      "task 1_3 (partition 3) of 'counts' runs on no reachable instance now (rebalancing?); retry",
    );
  });

  it('is a 503 while the app is not RUNNING', async () => {
    const app = fakeApp({ the: 1 }, all, {}, 'REBALANCING');
    const q = new WordCountQueries(app, { self: 'self:1', partitions: PARTITIONS });
    expect(await route(q, 'GET', '/counts/the')).toMatchObject({
      status: 503,
      body: { error: 'not_running' },
      headers: { 'retry-after': '1' },
    });
  });
});

describe('GET /counts?top=N', () => {
  it('rejects a bad top with a 400 that says why', async () => {
    const q = new WordCountQueries(fakeApp({}, all), { self: 'self:1', partitions: PARTITIONS });
    const cases: Array<[string, string]> = [
      ['abc', 'top must be a whole number from 1 to 1000, got "abc"'],
      ['1.5', 'top must be a whole number from 1 to 1000, got "1.5"'],
      ['-3', 'top must be a whole number from 1 to 1000, got "-3"'],
      ['', 'top must be a whole number from 1 to 1000, got ""'],
      ['0', 'top must be from 1 to 1000, got 0'],
      ['1001', 'top must be from 1 to 1000, got 1001'],
    ];
    for (const [top, message] of cases) {
      expect(await route(q, 'GET', `/counts?top=${top}`)).toEqual({
        status: 400,
        body: { error: 'bad_request', message },
      });
    }
    expect((await route(q, 'GET', '/counts?top=3&scope=everywhere')).status).toBe(400);
  });

  it('gathers each instance’s local top N and merges them; ties go by word', async () => {
    const mine = { [wordIn(0, 'a')]: 5, [wordIn(1, 'b')]: 9, [wordIn(0, 'c')]: 1 };
    const theirs = [
      { word: 'x', count: 7 },
      { word: 'y', count: 5 },
    ];
    const { peer, calls } = recordingPeer(() => ({
      status: 200,
      body: { top: theirs, instances: ['other:2'] },
    }));
    const q = new WordCountQueries(fakeApp(mine, [0, 1], { 2: 'other:2', 3: 'other:2' }), {
      self: 'self:1',
      partitions: PARTITIONS,
      peer,
    });
    const reply = await route(q, 'GET', '/counts?top=3');
    const [a, b] = Object.keys(mine);
    expect(reply).toEqual({
      status: 200,
      body: {
        top: [
          { word: b, count: 9 },
          { word: 'x', count: 7 },
          { word: a, count: 5 },
        ],
        instances: ['other:2', 'self:1'],
      },
    });
    expect(calls).toEqual(['other:2/counts?top=3&scope=local']);
  });

  it('scope=local answers from this instance only; the default top is 10', async () => {
    const counts = Object.fromEntries(Array.from({ length: 15 }, (_, i) => [`w${i}`, i]));
    const { peer, calls } = recordingPeer(() => ({ status: 200, body: { top: [] } }));
    const q = new WordCountQueries(fakeApp(counts, [0, 1], { 2: 'other:2', 3: 'other:2' }), {
      self: 'self:1',
      partitions: PARTITIONS,
      peer,
    });
    const reply = await route(q, 'GET', '/counts?scope=local');
    expect((reply.body as { top: unknown[] }).top).toHaveLength(10);
    expect((reply.body as { top: Array<{ count: number }> }).top[0]).toEqual({ word: 'w14', count: 14 });
    expect(calls).toEqual([]);
  });

  it('is a 503 naming the partitions that have no owner, rather than a silently short list', async () => {
    const q = new WordCountQueries(fakeApp({ a: 1 }, [0, 1]), { self: 'self:1', partitions: PARTITIONS });
    const reply = await route(q, 'GET', '/counts?top=5');
    expect(reply.status).toBe(503);
    expect(reply.body).toMatchObject({ error: 'unavailable', partitions: [2, 3] });
  });
});

describe('other routes', () => {
  it('/health (the @kstreams/http plugin) is 200 when RUNNING, 503 otherwise', async () => {
    for (const [state, status] of [
      ['RUNNING', 200],
      ['REBALANCING', 503],
      ['ERROR', 503],
      ['NOT_RUNNING', 503],
    ] as const) {
      const app = fakeApp({}, all, {}, state);
      const q = new WordCountQueries(app, { self: 'self:1', partitions: PARTITIONS });
      const reply = await route(q, 'GET', '/health', {}, app);
      expect(reply).toMatchObject({ status, body: { status: state, ready: status === 200 } });
      expect(reply.headers?.['retry-after']).toBe(status === 200 ? undefined : '1');
    }
  });

  it('unknown paths are 404 and other methods 405, with JSON bodies', async () => {
    const q = new WordCountQueries(fakeApp({}, all), { self: 'self:1', partitions: PARTITIONS });
    expect(await route(q, 'GET', '/words')).toEqual({
      status: 404,
      body: {
        error: 'not_found',
        message:
          'no route for /words; the routes are GET /counts/:word, GET /counts?top=N, GET /health, GET /metrics, GET /status, GET /stores/counts/keys/:word, GET /',
      },
    });
    expect((await route(q, 'GET', '/counts/a/b')).status).toBe(404);
    const post = await route(q, 'POST', '/counts/a');
    expect(post.status).toBe(405);
    expect(post.headers).toEqual({ allow: 'GET' });
  });

  it('serves JSON over HTTP, and 503 until the app is there', async () => {
    let queries: WordCountQueries | undefined;
    let app: QueryableStreams | undefined;
    const server = await startQueryServer(
      0,
      () => queries,
      () => app as unknown as KafkaStreams | undefined,
      silent,
    );
    try {
      const before = await fetch(`http://127.0.0.1:${server.port}/counts/the`);
      expect(before.status).toBe(503);
      expect(await before.json()).toMatchObject({ error: 'starting' });
      app = fakeApp({}, all, {}, 'RUNNING', `127.0.0.1:${server.port}`);
      queries = new WordCountQueries(app, { self: `127.0.0.1:${server.port}`, partitions: PARTITIONS });
      const missing = await fetch(`http://127.0.0.1:${server.port}/counts/the`);
      expect(missing.status).toBe(404);
      expect(missing.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await missing.json()).toMatchObject({ error: 'not_found', word: 'the' });
    } finally {
      await server.close();
    }
  });
});

describe('helpers', () => {
  it('topN keeps the n highest counts, ties by word, from any iterable', async () => {
    const entries = [
      { word: 'c', count: 2 },
      { word: 'a', count: 5 },
      { word: 'd', count: 2 },
      { word: 'b', count: 2 },
      { word: 'e', count: 9 },
    ];
    expect(await topN(entries, 3)).toEqual([
      { word: 'e', count: 9 },
      { word: 'a', count: 5 },
      { word: 'b', count: 2 },
    ]);
    expect(await topN(entries, 10)).toHaveLength(5);
  });

  it('probeKeys gives one key per partition, each landing in its partition', () => {
    const keys = probeKeys(6);
    expect(keys).toHaveLength(6);
    keys.forEach((key, p) => {
      expect(partitionForKey(Serdes.String().serialize(key), 6)).toBe(p);
    });
  });
});

describe('logger', () => {
  it('quietKafkaResponses drops kafkajs Connection lines and keeps the rest', () => {
    const lines: string[] = [];
    const original = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((chunk: string) => {
      lines.push(String(chunk));
      return true;
    }) as typeof process.stdout.write;
    try {
      const logger = createLogger('info', { name: 'demo', tty: false, quietKafkaResponses: true });
      logger.error({ namespace: 'Connection', error: 'coordinator loading' }, 'Response InitProducerId');
      logger.error({ namespace: 'Consumer' }, 'Restarting the consumer');
      logger.info('plain');
      logger.flush();
    } finally {
      process.stdout.write = original;
    }
    const messages = lines.map((l) => JSON.parse(l).msg);
    expect(messages).toEqual(['Restarting the consumer', 'plain']);
  });
});

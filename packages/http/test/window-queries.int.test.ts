// The plugin's window and session store routes over two instances of one app on the real broker:
// each instance answers for every key, from its own task or by forwarding once to the owner.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  KafkaStreams,
  Serdes,
  SessionWindows,
  StreamsBuilder,
  TimeWindows,
  type Topology,
} from '@kstreams/core';
import { afterAll, describe, expect, it } from 'vitest';
import { testBrokers, testKafka, topicsForThisFile, uniqueName } from '../../../scripts/test/kafka.ts';
import { type StreamsHttpServer, startHttpServer } from '../src/index.ts';

const topics = topicsForThisFile();
const SIZE = 10_000;
const GAP = 5_000;
/** Aligned to the window size, an hour ago (brokers refuse timestamps far in the future). */
const T0 = Math.floor((Date.now() - 3_600_000) / SIZE) * SIZE;

function clicks(input: string): Topology {
  const builder = new StreamsBuilder();
  const grouped = builder
    .stream(input, { keySerde: Serdes.String(), valueSerde: Serdes.String() })
    .groupByKey();
  // Kept a minute: by default a window store keeps windows only size + grace behind stream time.
  grouped
    .windowedBy(TimeWindows.ofSizeWithNoGrace(SIZE))
    .count({ storeName: 'per-10s', retentionMs: 60_000 });
  grouped
    .windowedBy(SessionWindows.ofInactivityGapWithNoGrace(GAP))
    .count({ storeName: 'visits', retentionMs: 60_000 });
  return builder.build();
}

describe('window and session store routes', () => {
  const apps: KafkaStreams[] = [];
  const servers: StreamsHttpServer[] = [];
  afterAll(async () => {
    await Promise.all(apps.map((a) => a.close({ timeoutMs: 20_000 })));
    await Promise.all(servers.map((s) => s.close()));
  });

  it('answer a key on either instance, with a time range, forwarding to the owner', async () => {
    const input = await topics.create('wq-in', 4);
    const applicationId = uniqueName('wq-app');
    topics.cleanUpPrefix(applicationId);
    for (let i = 0; i < 2; i++) {
      let app: KafkaStreams | undefined;
      const server = await startHttpServer({ app: () => app, port: 0, host: '127.0.0.1' });
      servers.push(server);
      app = new KafkaStreams(clicks(input), {
        applicationId,
        brokers: testBrokers(),
        applicationServer: `127.0.0.1:${server.port}`,
        // Two instances in one process: each its own state directory (one instance per directory).
        stateDir: join(tmpdir(), uniqueName(`wq-state-${i}`)),
        commitIntervalMs: 200,
        logger: 'silent',
      });
      apps.push(app);
    }
    await Promise.all(apps.map((a) => a.start()));
    // user-i clicks at T0 + 1 s, + 3 s (one session), + 12 s (the next window; 9 s later: a new session).
    const users = Array.from({ length: 8 }, (_, i) => `user-${i}`);
    const producer = testKafka().producer();
    await producer.connect();
    await producer.send({
      topic: input,
      // In time order: with no grace, a record older than its task's stream time allows is late.
      messages: [1_000, 3_000, 12_000].flatMap((dt) =>
        users.map((user) => ({ key: user, value: 'click', timestamp: String(T0 + dt) })),
      ),
    });
    await producer.disconnect();

    const ask = async (server: StreamsHttpServer, path: string) => {
      const res = await fetch(`http://127.0.0.1:${server.port}${path}`);
      return { code: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    // Every user's windows and sessions, on both instances: the users' partitions belong to
    // different tasks, which process and commit (and so leave their caches) independently.
    const deadline = Date.now() + 60_000;
    const answered = async () => {
      for (const user of users) {
        for (const server of servers) {
          const w = await ask(server, `/stores/per-10s/windows/${user}`);
          const v = await ask(server, `/stores/visits/sessions/${user}`);
          if ((w.body.windows as unknown[] | undefined)?.length !== 2) return false;
          if ((v.body.sessions as unknown[] | undefined)?.length !== 2) return false;
        }
      }
      return true;
    };
    while (Date.now() < deadline && !(await answered())) await new Promise((r) => setTimeout(r, 200));
    const hosts = new Set<unknown>();
    for (const user of users) {
      const windows = await Promise.all(servers.map((s) => ask(s, `/stores/per-10s/windows/${user}`)));
      for (const w of windows) {
        expect(w.code).toBe(200);
        expect(w.body.windows).toEqual([
          { start: T0, end: T0 + SIZE, value: 2 },
          { start: T0 + SIZE, end: T0 + 2 * SIZE, value: 1 },
        ]);
      }
      expect(windows[0]!.body.host).toBe(windows[1]!.body.host);
      hosts.add(windows[0]!.body.host);
      const visits = await Promise.all(servers.map((s) => ask(s, `/stores/visits/sessions/${user}`)));
      for (const v of visits)
        expect(v.body.sessions).toEqual([
          { start: T0 + 1_000, end: T0 + 3_000, value: 2 },
          { start: T0 + 12_000, end: T0 + 12_000, value: 1 },
        ]);
    }
    // Both instances own users: each answered some by forwarding.
    expect(hosts).toEqual(new Set(servers.map((s) => `127.0.0.1:${s.port}`)));

    // from/to: windows that start in the range; sessions that end at or after from and start at or before to.
    const ranged = await ask(servers[0]!, `/stores/per-10s/windows/user-0?from=${T0 + 1}&to=${T0 + SIZE}`);
    expect(ranged.body).toMatchObject({
      from: T0 + 1,
      to: T0 + SIZE,
      windows: [{ start: T0 + SIZE, value: 1 }],
    });
    const late = await ask(servers[1]!, `/stores/visits/sessions/user-0?from=${T0 + 5_000}`);
    expect(late.body.sessions).toEqual([{ start: T0 + 12_000, end: T0 + 12_000, value: 1 }]);
    expect((await ask(servers[0]!, '/stores/per-10s/windows/nobody')).body.windows).toEqual([]);
    const bad = await ask(servers[0]!, '/stores/per-10s/windows/user-0?from=10&to=5');
    expect(bad).toEqual({
      code: 400,
      body: { error: 'bad_request', message: 'from (10) must not be after to (5)' },
    });
    const kind = await ask(servers[0]!, '/stores/per-10s/keys/user-0');
    expect(kind.code).toBe(404);
    expect(kind.body.message).toContain('QueryableStoreTypes.windowStore()');
  }, 180_000);
});

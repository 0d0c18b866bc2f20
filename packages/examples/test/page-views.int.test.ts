// Two instances of the page-views app as child processes under exactly_once: the output topic,
// read read_committed, holds exactly the final per-minute counts of the generated data, each once;
// either instance answers a user's minutes and sessions (its own route and the plugin's generic
// window and session routes), forwarding to the owner when needed.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../scripts/test/free-port.ts';
import { testBrokers, testKafka, topicsForThisFile, uniqueName } from '../../../scripts/test/kafka.ts';
import { inputProgress } from '../src/common/input-progress.ts';
import { feederProducer } from '../src/common/kafka.ts';
import { simulatedStart } from '../src/common/simulation.ts';
import { sendPageViews } from '../src/page-views/feeder.ts';
import { FinalWindowsReader } from '../src/page-views/final-windows.ts';
import {
  countsPerMinute,
  generatePageViews,
  sessionsPerUser,
  userName,
} from '../src/page-views/generator.ts';
import { MINUTE_MS } from '../src/page-views/topology.ts';
import {
  allRunning,
  eventually,
  getJson,
  type Instance,
  killAll,
  logsOf,
  startInstance,
} from './instances.ts';

const USERS = 16;
const data = generatePageViews({
  seed: 11,
  users: USERS,
  hours: 2,
  startMs: simulatedStart(2),
  partitions: 4,
});
const truth = countsPerMinute(data.views);
const sessions = sessionsPerUser(data.views);

/** The truth as the list of windows the output topic must hold, in a fixed order. */
function expectedWindows() {
  return [...truth]
    .map(([k, views]) => {
      const [user, start] = k.split(' ');
      return { user: user!, start: Number(start), end: Number(start) + MINUTE_MS, views };
    })
    .sort((a, b) => (a.user < b.user ? -1 : a.user > b.user ? 1 : a.start - b.start));
}

describe('page-views: final windows exactly once, and queries on two instances', () => {
  const topics = topicsForThisFile();
  const applicationId = uniqueName('pv-int');
  const input = `${applicationId}-views`;
  const output = `${applicationId}-per-minute`;
  const stateRoot = mkdtempSync(join(tmpdir(), 'pv-int-'));
  const instances: Instance[] = [];

  beforeAll(async () => {
    topics.cleanUpPrefix(applicationId);
    const ports = [await freePort(), await freePort()];
    for (const [index, port] of ports.entries()) {
      const args = [
        '--brokers',
        testBrokers().join(','),
        '--application-id',
        applicationId,
        '--input',
        input,
      ];
      args.push(
        '--output',
        output,
        '--state-dir',
        join(stateRoot, `instance-${index}`),
        '--guarantee',
        'exactly_once',
      );
      instances.push(
        startInstance('packages/examples/src/page-views/main.ts', args, port, `${applicationId}-${index}`),
      );
    }
    await allRunning(instances);
    const producer = feederProducer(testKafka('pv-int-feeder'));
    await producer.connect();
    await sendPageViews(producer, input, [...data.views, ...data.endOfData]);
    await producer.disconnect();
  });

  afterAll(async () => {
    await killAll(instances);
    rmSync(stateRoot, { recursive: true, force: true });
  });

  it('writes one final count per user and minute, equal to the data, read read_committed', async () => {
    expect(data.outOfOrder).toBeGreaterThan(0);
    const kafka = testKafka('pv-int-reader');
    const reader = new FinalWindowsReader(kafka, output, `${applicationId}-reader`);
    await reader.start();
    const admin = kafka.admin();
    await admin.connect();
    try {
      await eventually('every final window read and the input committed', 120_000, async () => {
        const progress = await inputProgress(admin, applicationId, input);
        const settled = Date.now() - reader.lastRecordTime > 2_000;
        return progress.caughtUp && reader.seen.size >= truth.size && settled ? true : undefined;
      }).catch((error) => {
        throw new Error(`${error.message}: ${reader.seen.size}/${truth.size} windows\n${logsOf(instances)}`);
      });
    } finally {
      await admin.disconnect();
      await reader.stop();
    }
    const sorted = [...reader.records].sort((a, b) =>
      a.user < b.user ? -1 : a.user > b.user ? 1 : a.start - b.start,
    );
    expect(sorted).toEqual(expectedWindows());
  });

  it("GET /users/:user/windows and /sessions on either instance give the user's minutes and sessions", async () => {
    const owners = new Set<unknown>();
    for (let i = 0; i < USERS; i += 3) {
      const user = userName(i);
      const minutes = expectedWindows()
        .filter((w) => w.user === user)
        .map(({ start, end, views }) => ({ start, end, views }));
      for (const instance of instances) {
        const windows = await getJson(instance.port, `/users/${user}/windows`);
        expect(windows.status, JSON.stringify(windows.body)).toBe(200);
        expect(
          (windows.body.windows as Array<Record<string, unknown>>).map(({ start, end, views }) => ({
            start,
            end,
            views,
          })),
        ).toEqual(minutes);
        const found = await getJson(instance.port, `/users/${user}/sessions`);
        expect(
          (found.body.sessions as Array<Record<string, unknown>>).map(({ start, end, views, pages }) => ({
            start,
            end,
            views,
            pages,
          })),
        ).toEqual(sessions.get(user));
        owners.add(windows.body.host);
      }
    }
    expect(owners, logsOf(instances)).toEqual(new Set(instances.map((i) => `127.0.0.1:${i.port}`)));
  });

  it('the generic /stores routes: a time range of a window store, a session store, clear errors', async () => {
    const user = userName(0);
    const mine = expectedWindows().filter((w) => w.user === user);
    const [from, to] = [mine[2]!.start, mine[5]!.start];
    for (const instance of instances) {
      const r = await getJson(
        instance.port,
        `/stores/views-per-minute/windows/${user}?from=${new Date(from).toISOString()}&to=${to}`,
      );
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ store: 'views-per-minute', key: user, from, to });
      expect(r.body.windows).toEqual(
        mine.slice(2, 6).map(({ start, end, views }) => ({ start, end, value: views })),
      );
      const s = await getJson(instance.port, `/stores/sessions/sessions/${user}`);
      expect((s.body.sessions as Array<{ value: unknown }>).map((x) => x.value)).toEqual(
        sessions.get(user)!.map(({ views, pages }) => ({ views, pages })),
      );
    }
    const port = instances[0]!.port;
    const bad = await getJson(port, `/stores/views-per-minute/windows/${user}?from=yesterday`);
    expect(bad).toMatchObject({ status: 400, body: { error: 'bad_request' } });
    expect(String(bad.body.message)).toContain('ISO-8601');
    const wrongKind = await getJson(port, `/stores/sessions/windows/${user}`);
    expect(wrongKind.status).toBe(404);
    expect(String(wrongKind.body.message)).toContain('QueryableStoreTypes.sessionStore()');
    expect((await getJson(port, `/stores/nope/windows/${user}`)).status).toBe(404);
  });

  it('stops cleanly on SIGTERM (exit code 0)', async () => {
    for (const instance of instances) instance.child.kill('SIGTERM');
    expect(await Promise.all(instances.map((i) => i.exited))).toEqual([0, 0]);
  });
});

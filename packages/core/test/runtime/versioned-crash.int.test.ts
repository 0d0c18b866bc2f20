// exactly_once with SIGKILLs keeps a versioned store exact (issue 39): one child instance of a
// versioned-table app, killed and restarted (same state directory) while out-of-order updates and
// tombstones flow in. Then every version of every key is checked three ways: in the output
// (read_committed: each update forwarded once), in the changelog (read_committed, replayed into a
// fresh store as a restore would), and in the instance's own LevelDB stores after a clean stop.
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  encodeRestoreValue,
  InMemoryKeyValueStore,
  type KeyValueBytesStore,
  LevelKeyValueStore,
  TransactionalBuffer,
  VersionedBytesStore,
  VersionedRestoreTarget,
} from '@kstreams/state-store';
import { beforeAll, expect, it } from 'vitest';
import { topicsForThisFile } from '../../../../scripts/test/kafka.ts';
import { ChildApp, prepareChildApp } from './child-app.ts';
import { VERSIONED_RETENTION_MS, VERSIONED_STORE } from './fixtures/versioned-table-topology.ts';
import { produce, readTopic, stopAfterEach, testBrokers, testKafka, waitFor } from './kafka-helpers.ts';
import { prng } from './text-fixtures.ts';

const topics = topicsForThisFile();
const children = stopAfterEach((child: ChildApp) => child.kill());
beforeAll(() => prepareChildApp());

const KEYS = 20;
const VERSIONS = 300;
const PARTITIONS = 2;

interface Update {
  key: string;
  value: string | null;
  timestamp: number;
}

/** Per key: VERSIONS updates 10 ms apart (every 7th a tombstone), neighbours swapped at random. */
function updates(base: number): Update[] {
  const rand = prng(39);
  const all: Update[] = [];
  for (let v = 0; v < VERSIONS; v++) {
    for (let k = 0; k < KEYS; k++) {
      all.push({ key: `k${k}`, value: v % 7 === 6 ? null : `v${v}`, timestamp: base + v * 10 + k });
    }
  }
  for (let i = 0; i + KEYS < all.length; i++) {
    if (rand() < 0.3) [all[i], all[i + KEYS]] = [all[i + KEYS]!, all[i]!];
  }
  return all;
}

/** Every version is what get(key, asOf) answers at its timestamp and just before the next one. */
function expectEveryVersion(store: VersionedBytesStore, all: readonly Update[]): void {
  const wrong: string[] = [];
  for (let k = 0; k < KEYS; k++) {
    const mine = all.filter((u) => u.key === `k${k}`).sort((a, b) => a.timestamp - b.timestamp);
    mine.forEach((u, i) => {
      const until = (mine[i + 1]?.timestamp ?? u.timestamp + 1) - 1;
      for (const at of [u.timestamp, until]) {
        const got = store.getAsOf(Buffer.from(u.key), at)?.value.toString() ?? null;
        if (got !== u.value) wrong.push(`${u.key}@${at}: want ${u.value}, got ${got}`);
      }
    });
  }
  expect(wrong.slice(0, 5)).toEqual([]);
}

it('exactly_once, SIGKILLed twice: output, changelog and store hold every version once', async () => {
  const { input, output, applicationId } = await topics.forApp('versioned-crash', PARTITIONS);
  const stateDir = mkdtempSync(join(tmpdir(), 'kstreams-versioned-'));
  const app = new ChildApp({
    KAFKA_BROKERS: testBrokers().join(','),
    APPLICATION_ID: applicationId,
    INPUT_TOPIC: input,
    OUTPUT_TOPIC: output,
    STATE_DIR: stateDir,
    PROCESSING_GUARANTEE: 'exactly_once',
    COMMIT_INTERVAL_MS: '100',
    TOPOLOGY: 'versioned-table',
  });
  children.push(app);
  app.start();
  await waitFor(() => app.state === 'RUNNING', 60_000, 'the app running');
  const all = updates(Date.now() - 3_600_000);
  const chunk = all.length / 10;
  for (let i = 0; i < 10; i++) {
    await produce(
      input,
      all
        .slice(i * chunk, (i + 1) * chunk)
        .map((u) => ({ key: u.key, value: u.value, timestamp: u.timestamp })),
    );
    await new Promise((r) => setTimeout(r, 400));
    if (i === 3 || i === 7) {
      await app.kill();
      app.start();
    }
  }
  const out = await readTopic(output, (r) => r.length >= all.length, { timeoutMs: 120_000 });
  await new Promise((r) => setTimeout(r, 1_000));
  expect(await app.stop()).toBe(0);
  // Killed twice (once perhaps before it was running again), the third run processed the rest.
  expect(app.events.some((e) => e.run === 3 && e.state === 'RUNNING')).toBe(true);

  // The output: every update once, out-of-order ones included (Kafka Streams forwards them).
  const seen = out.map((r) => `${r.key}@${r.timestamp}=${r.value.toString()}`).sort();
  const expected = all.map((u) => `${u.key}@${u.timestamp}=${u.value ?? 'deleted'}`).sort();
  expect(seen).toEqual(expected);

  // The changelog: compacted only after the history retention plus a day (Kafka Streams' config)...
  const changelog = `${applicationId}-${VERSIONED_STORE}-changelog`;
  const admin = testKafka().admin();
  await admin.connect();
  const described = await admin
    .describeConfigs({
      resources: [{ type: 2, name: changelog, configNames: ['cleanup.policy', 'min.compaction.lag.ms'] }],
      includeSynonyms: false,
    })
    .finally(() => admin.disconnect());
  expect(
    Object.fromEntries(described.resources[0]!.configEntries.map((e) => [e.configName, e.configValue])),
  ).toEqual({
    'cleanup.policy': 'compact',
    'min.compaction.lag.ms': String(VERSIONED_RETENTION_MS + 86_400_000),
  });
  // ...and its records, read_committed, replayed as a restore does.
  const logged = await readTopic(changelog, (r) => r.length >= all.length, { timeoutMs: 60_000 });
  expect(logged).toHaveLength(all.length);
  const replayed = new InMemoryKeyValueStore('replay');
  await replayed.open();
  const options = { name: 'replay', historyRetentionMs: VERSIONED_RETENTION_MS };
  await new VersionedRestoreTarget(replayed, options).writeBatch(
    logged.map((r) => ({
      key: Buffer.from(r.key),
      value: encodeRestoreValue(r.timestamp, r.value === null || r.value.length === 0 ? null : r.value),
    })),
  );
  expectEveryVersion(new VersionedBytesStore(new TransactionalBuffer(replayed), options), all);

  // The instance's own LevelDB stores, one per task.
  const appDir = join(stateDir, applicationId);
  const stores: KeyValueBytesStore[] = readdirSync(appDir)
    .map((task) => join(appDir, task, VERSIONED_STORE))
    .filter((dir) => existsSync(dir))
    .map((location) => new LevelKeyValueStore({ name: VERSIONED_STORE, location }));
  expect(stores).toHaveLength(PARTITIONS);
  for (const store of stores) await store.open();
  try {
    const view = {
      get: (key: Buffer) => stores.map((s) => s.get(key)).find((v) => v !== undefined),
      put: () => {
        throw new Error('read only');
      },
      delete: () => undefined,
    };
    expectEveryVersion(new VersionedBytesStore(view, options), all);
  } finally {
    for (const store of stores) await store.close();
  }
}, 240_000);

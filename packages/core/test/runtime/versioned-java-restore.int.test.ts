// A versioned store's changelog written by kstreams restores in a Java Kafka Streams 4.4 app, and
// the other way round, on the broker (issue 39). kstreams runs a versioned table (exactly_once, two
// partitions) over several versions per key, updates out of order, a replaced version, tombstones
// and an update older than the history retention; then a Java app with the same application id
// and store name (scripts/differential/VersionedStoreApp.java) restores the store from the
// changelog and answers IQv2 queries: the latest version, the version as of many times, every
// version and those in time ranges. Its answers must be kstreams' own, read through `app.query`
// before it stopped. The other way, the Java app processes the same input and kstreams restores
// its changelog. (test/differential/versioned-restore.test.ts compares the restored bytes with
// a changelog from Kafka Streams' TopologyTestDriver.)
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { javaToolsAvailable, runJava } from '../../../../scripts/differential/java.ts';
import { topicsForThisFile } from '../../../../scripts/test/kafka.ts';
import {
  KafkaStreams,
  MultiVersionedKeyQuery,
  type Query,
  Serdes,
  StateQueryRequest,
  VersionedKeyQuery,
  type VersionedRecord,
} from '../../src/index.ts';
import {
  VERSIONED_RETENTION_MS,
  VERSIONED_STORE,
  versionedTable,
} from './fixtures/versioned-table-topology.ts';
import { produce, readTopic, stopAfterEach, tempStateDir, testBrokers, waitFor } from './kafka-helpers.ts';

const topics = topicsForThisFile();
const apps = stopAfterEach((app: KafkaStreams) => app.close({ timeoutMs: 30_000 }));
const javaApp = fileURLToPath(
  new URL('../../../../scripts/differential/VersionedStoreApp.java', import.meta.url),
);

const H = 8 * 3_600_000; // versions 8 hours apart: 5 of them span more than the retention (a day)
const KEYS = ['k0', 'k1', 'k2', 'k3', 'k4', 'k5'];

interface Update {
  key: string;
  value: string | null;
  timestamp: number;
}

/**
 * Five versions per key (key i's at base + v*H + i), sent in the order v0, v2, v1, v4, v3 (two
 * out of order); tombstones for k1's v2 and k2's v4 (k2's latest is deleted) and k4's v1; then k3's
 * v2 replaced at the same timestamp, k5 given a version between v1 and v2, and k0 one older than
 * the history retention (stream time minus a day): Kafka Streams logs it but stores nothing.
 */
function updates(base: number): Update[] {
  const deleted = new Set(['k1/2', 'k2/4', 'k4/1']);
  const all: Update[] = [];
  for (const v of [0, 2, 1, 4, 3]) {
    KEYS.forEach((key, i) => {
      all.push({
        key,
        value: deleted.has(`${key}/${v}`) ? null : `${key}-v${v}`,
        timestamp: base + v * H + i,
      });
    });
  }
  all.push({ key: 'k3', value: 'k3-v2b', timestamp: base + 2 * H + 3 });
  all.push({ key: 'k5', value: 'k5-late', timestamp: base + H + 3_600_000 + 5 });
  all.push({ key: 'k0', value: 'k0-too-old', timestamp: base - H });
  return all;
}

interface Version {
  value: string;
  timestamp: number;
  validTo: number | null;
}
interface Answers {
  [key: string]: {
    latest: Version | null;
    asOf: { [at: string]: Version | null };
    versions: Version[];
    ranges: { [fromTo: string]: Version[] };
  };
}

const plain = (r: VersionedRecord<string> | undefined): Version | null =>
  r === undefined ? null : { value: r.value, timestamp: r.timestamp, validTo: r.validTo ?? null };

/** What kstreams' versioned store answers through IQv2, in the Java app's shape. */
async function kstreamsAnswers(
  app: KafkaStreams,
  times: readonly number[],
  ranges: ReadonlyArray<readonly [number, number]>,
): Promise<Answers> {
  const answers: Answers = {};
  for (const key of KEYS) {
    const { partition } = await app.queryMetadataForKey(VERSIONED_STORE, key, Serdes.String());
    const ask = async <R>(query: Query<R>): Promise<R> => {
      const request = StateQueryRequest.inStore(VERSIONED_STORE).withQuery(query).withPartitions([partition]);
      return (await app.query(request)).getOnlyPartitionResult()!.getResult();
    };
    const one = VersionedKeyQuery.withKey<string, string>(key);
    const multi = MultiVersionedKeyQuery.withKey<string, string>(key);
    const asOf: { [at: string]: Version | null } = {};
    for (const at of times) asOf[String(at)] = plain(await ask(one.asOf(at)));
    const versionsOf = async (query: MultiVersionedKeyQuery<string, string>) => {
      const versions: Version[] = [];
      for await (const v of await ask(query.withAscendingTimestamps())) versions.push(plain(v)!);
      return versions;
    };
    const inRanges: { [fromTo: string]: Version[] } = {};
    for (const [from, to] of ranges)
      inRanges[`${from}/${to}`] = await versionsOf(multi.fromTime(from).toTime(to));
    answers[key] = {
      latest: plain(await ask(one)),
      asOf,
      versions: await versionsOf(multi),
      ranges: inRanges,
    };
  }
  return answers;
}

type Ranges = ReadonlyArray<readonly [number, number]>;

/** The queries both sides answer: times and version ranges. */
function queriesFor(base: number): { times: number[]; ranges: Ranges } {
  // Times around every version, between them, before the retention and after the last.
  const times = [base - 2 * H, base + H + 3_600_000 + 5, base + 10 * H];
  for (let v = 0; v < 5; v++) for (const d of [-1, 0, 2, 5, 60_000]) times.push(base + v * H + d);
  // Version ranges: ending before the retention's cutoff (stream time minus a day, about
  // base + H: Kafka Streams reads only the latest version then), from before it and from after
  // it. Each ends after the last version: Kafka Streams 4.4 searches only the segments up to
  // toTime's, and its segments hold versions by their validTo, so a version valid at toTime
  // whose validTo lies in a later segment goes missing (all but the latest); kstreams lists
  // every version valid in the range, as KIP-968 defines the query.
  const ranges: Ranges = [
    [base, base + H - 1],
    [base + H - 1, base + 10 * H],
    [base + 2 * H + 1, base + 10 * H],
  ];
  return { times, ranges };
}

/**
 * kstreams' answers once the last update is visible: queries read committed state, which a task
 * writes right after its commit (and answers only once restored).
 */
async function settledAnswers(app: KafkaStreams, times: readonly number[], ranges: Ranges): Promise<Answers> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const ours = await kstreamsAnswers(app, times, ranges).catch((error: Error) => error);
    if (!(ours instanceof Error) && ours.k5!.versions.length >= 4) return ours;
    if (Date.now() > deadline) throw ours instanceof Error ? ours : new Error('k5 lacks versions');
    await new Promise((r) => setTimeout(r, 200));
  }
}

function kstreamsApp(applicationId: string, input: string, output: string): KafkaStreams {
  const app = new KafkaStreams(versionedTable(input, output), {
    applicationId,
    brokers: testBrokers(),
    processingGuarantee: 'exactly_once',
    commitIntervalMs: 100,
    stateDir: tempStateDir(),
    logger: 'warn',
  });
  apps.push(app);
  return app;
}

/** VersionedStoreApp.java under this application id: records it restored and its answers. */
function javaAnswers(
  mode: 'restore' | 'process',
  applicationId: string,
  input: string,
  { times, ranges }: { times: readonly number[]; ranges: Ranges },
): { restored: number; answers: Answers } {
  const dir = mkdtempSync(join(tmpdir(), 'kstreams-versioned-java-'));
  try {
    const file = join(dir, 'queries.json');
    writeFileSync(file, JSON.stringify({ keys: KEYS, asOf: times, ranges }));
    const args = [applicationId, input, VERSIONED_STORE, String(VERSIONED_RETENTION_MS), file, mode];
    return JSON.parse(runJava(javaApp, [testBrokers().join(','), ...args]));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe.skipIf(!javaToolsAvailable())('a versioned store’s changelog on the broker', () => {
  it('written by kstreams restores in a Kafka Streams 4.4 app, which answers every query alike', async () => {
    const { input, output, applicationId } = await topics.forApp('versioned-java', 2);
    const base = Date.now() - 3 * 24 * 3_600_000;
    const all = updates(base);
    await produce(input, all);

    const app = kstreamsApp(applicationId, input, output);
    await app.start();
    // Every update but the too-old one is forwarded (out-of-order ones too).
    await readTopic(output, (r) => r.length >= all.length - 1, { timeoutMs: 60_000 });
    const queries = queriesFor(base);
    const ours = await settledAnswers(app, queries.times, queries.ranges);
    await app.close({ timeoutMs: 30_000 });

    // What kstreams answers is what a versioned store must answer (spot checks; Java says the rest).
    const at = (key: string, t: number) => ours[key]!.asOf[String(t)]?.value ?? null;
    expect(ours.k2!.latest).toBeNull();
    expect(ours.k0!.latest).toEqual({ value: 'k0-v4', timestamp: base + 4 * H, validTo: null });
    expect(at('k1', base + 2 * H + 2)).toBeNull();
    expect(at('k1', base + 2 * H)).toBe('k1-v1');
    expect(at('k3', base + 2 * H + 5)).toBe('k3-v2b');
    expect(at('k5', base + H + 3_600_000 + 5)).toBe('k5-late');
    expect(KEYS.map((k) => at(k, base - 2 * H))).toEqual(KEYS.map(() => null));
    // Past the retention only the latest version is read (none here); from just before the cutoff
    // v0 too (it ended before it, but its segment is live).
    expect(KEYS.map((k) => ours[k]!.ranges[`${base}/${base + H - 1}`])).toEqual(KEYS.map(() => []));
    const across = ours.k0!.ranges[`${base + H - 1}/${base + 10 * H}`]!;
    expect(across.map((v) => v.value)).toEqual(['k0-v0', 'k0-v1', 'k0-v2', 'k0-v3', 'k0-v4']);

    // The Java app, same application id and store: the group's committed offsets are at the
    // input's end, so all it holds comes from restoring kstreams' changelog.
    const java = javaAnswers('restore', applicationId, input, queries);
    // Every put is in the changelog, the too-old one included (Kafka Streams logs it too).
    expect(java.restored).toBe(all.length);
    expect(java.answers).toEqual(ours);
  }, 300_000);

  it('written by a Kafka Streams 4.4 app restores in kstreams, which answers every query alike', async () => {
    const { input, output, applicationId } = await topics.forApp('versioned-from-java', 2);
    const base = Date.now() - 3 * 24 * 3_600_000;
    const all = updates(base);
    await produce(input, all);
    const queries = queriesFor(base);
    // Java processes the input (exactly_once_v2), commits it and answers.
    const java = javaAnswers('process', applicationId, input, queries);
    expect(java.restored).toBe(0);
    expect(java.answers.k3!.asOf[String(base + 2 * H + 5)]?.value).toBe('k3-v2b');

    // kstreams, same application id and store: it restores Java's changelog, every put of it.
    const app = kstreamsApp(applicationId, input, output);
    let restored = 0;
    app.setGlobalStateRestoreListener({
      onBatchRestored: (_store, _changelog, _end, n) => {
        restored += n;
      },
    });
    await app.start();
    await waitFor(() => restored === all.length, 60_000, `${all.length} changelog records restored`);
    const ours = await settledAnswers(app, queries.times, queries.ranges);
    expect(ours).toEqual(java.answers);
    await app.close({ timeoutMs: 30_000 });
    // It processed nothing (the group's offsets were at the input's end): no output at all.
    const admin = await topics.admin();
    const ends = await admin.fetchTopicOffsets(output);
    expect(ends.map((e) => Number(e.high))).toEqual([0, 0]);
  }, 300_000);
});

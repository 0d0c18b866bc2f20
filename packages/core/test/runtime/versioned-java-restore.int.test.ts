// A versioned store's changelog written by kstreams restores in a Java Kafka Streams 4.4 app
// (issue 39). kstreams runs a versioned table (exactly_once, two partitions) over several versions
// per key, updates out of order, a replaced version, tombstones and an update older than the
// history retention; then a Java app with the same application id and store name
// (scripts/differential/VersionedStoreApp.java) restores the store from the changelog on the
// broker and answers IQv2 queries: the latest version, the version as of many times, and every
// version. Its answers must be kstreams' own, read through `app.query` before it stopped. (The
// other way round: test/differential/versioned-restore.test.ts.)
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
import { produce, readTopic, stopAfterEach, tempStateDir, testBrokers } from './kafka-helpers.ts';

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

describe.skipIf(!javaToolsAvailable())('a versioned store’s changelog written by kstreams', () => {
  it('restores in a Kafka Streams 4.4 app, which answers every query as kstreams does', async () => {
    const { input, output, applicationId } = await topics.forApp('versioned-java', 2);
    const base = Date.now() - 3 * 24 * 3_600_000;
    const all = updates(base);
    await produce(input, all);

    const app = new KafkaStreams(versionedTable(input, output), {
      applicationId,
      brokers: testBrokers(),
      processingGuarantee: 'exactly_once',
      commitIntervalMs: 100,
      stateDir: tempStateDir(),
      logger: 'warn',
    });
    apps.push(app);
    await app.start();
    // Every update but the too-old one is forwarded (out-of-order ones too).
    await readTopic(output, (r) => r.length >= all.length - 1, { timeoutMs: 60_000 });

    // Times around every version, between them, before the retention and after the last.
    const times = [base - 2 * H, base + H + 3_600_000 + 5, base + 10 * H];
    for (let v = 0; v < 5; v++) for (const d of [-1, 0, 2, 5, 60_000]) times.push(base + v * H + d);
    // Version ranges: ending before the retention's cutoff (stream time minus a day, about
    // base + H: Kafka Streams reads only the latest version then), from before it and from after
    // it. Each ends after the last version: Kafka Streams 4.4 searches only the segments up to
    // toTime's, and its segments hold versions by their validTo, so a version valid at toTime
    // whose validTo lies in a later segment goes missing (all but the latest); kstreams lists
    // every version valid in the range, as KIP-968 defines the query.
    const ranges = [
      [base, base + H - 1],
      [base + H - 1, base + 10 * H],
      [base + 2 * H + 1, base + 10 * H],
    ] as const;
    // Queries read committed state, which the task writes right after the commit whose output
    // the reader saw: wait until the last update is visible.
    const deadline = Date.now() + 10_000;
    let ours = await kstreamsAnswers(app, times, ranges);
    while (ours.k5!.versions.length < 4 && Date.now() < deadline)
      ours = await kstreamsAnswers(app, times, ranges);
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
    expect(ours.k5!.versions.map((v) => v.value)).toContain('k5-late');
    // Past the retention only the latest version is read (none here); from just before the cutoff
    // v0 too (it ended before it, but its segment is live).
    expect(KEYS.map((k) => ours[k]!.ranges[`${base}/${base + H - 1}`])).toEqual(KEYS.map(() => []));
    const across = ours.k0!.ranges[`${base + H - 1}/${base + 10 * H}`]!;
    expect(across.map((v) => v.value)).toEqual(['k0-v0', 'k0-v1', 'k0-v2', 'k0-v3', 'k0-v4']);

    // The Java app, same application id and store: the group's committed offsets are at the
    // input's end, so all it holds comes from restoring kstreams' changelog.
    const dir = mkdtempSync(join(tmpdir(), 'kstreams-versioned-java-'));
    try {
      const file = join(dir, 'queries.json');
      writeFileSync(file, JSON.stringify({ keys: KEYS, asOf: times, ranges }));
      const java = JSON.parse(
        runJava(javaApp, [
          testBrokers().join(','),
          applicationId,
          input,
          VERSIONED_STORE,
          String(VERSIONED_RETENTION_MS),
          file,
        ]),
      ) as { restored: number; answers: Answers };
      // Every put is in the changelog, the too-old one included (Kafka Streams logs it too).
      expect(java.restored).toBe(all.length);
      expect(java.answers).toEqual(ours);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);
});

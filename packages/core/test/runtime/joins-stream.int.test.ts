// A stream-stream left join on the real broker (issue 13), under exactly_once and at_least_once:
// two input topics of two partitions, the output read read_committed is what the test driver
// gives for the same input, also across a restart that restores the stores from their changelogs.
// Input in timestamp order, each key in the same partition of both topics, so that each task's
// records come in the driver's order; a far-future record per partition closes every window.
import { describe, expect, it } from 'vitest';
import { topicsForThisFile } from '../../../../scripts/test/kafka.ts';
import { JoinWindows, KafkaStreams, Serdes, StreamsBuilder } from '../../src/index.ts';
import { TopologyTestDriver } from '../../src/testing/index.ts';
import {
  produce,
  readTopic,
  stopAfterEach,
  tempStateDir,
  testBrokers,
  testKafka,
  uniqueName,
} from './kafka-helpers.ts';

const topics = topicsForThisFile();
const apps = stopAfterEach((app: KafkaStreams) => app.close({ timeoutMs: 30_000 }));
const S = Serdes.String();

interface Input {
  topic: 'left' | 'right';
  key: string | null;
  value: string | null;
  timestamp: number;
  partition: number;
}

/** Seeded: keys k0..k5 (k<i> always in partition i % 2), some null keys and values, 1..40 ms apart. */
function input(n: number, base: number): Input[] {
  let seed = 42;
  const rand = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed / 2_147_483_648;
  };
  let time = base;
  const records: Input[] = [];
  for (let i = 0; i < n; i++) {
    time += 1 + Math.floor(rand() * 40);
    const k = Math.floor(rand() * 6);
    const roll = rand();
    records.push({
      topic: rand() < 0.5 ? 'left' : 'right',
      key: roll < 0.03 ? null : `k${k}`,
      value: roll > 0.95 ? null : `v${i}`,
      timestamp: time,
      partition: k % 2,
    });
  }
  // Past every window of each task (the flush records themselves stay waiting).
  for (const partition of [0, 1]) {
    records.push({
      topic: 'left',
      key: `flush${partition}`,
      value: 'end',
      timestamp: time + 10_000,
      partition,
    });
  }
  return records;
}

function topology(left: string, right: string, out: string): StreamsBuilder {
  const b = new StreamsBuilder();
  b.stream<string, string>(left)
    .leftJoin(
      b.stream<string, string>(right),
      (l: string, r: string | null) => `${l}+${r}`,
      JoinWindows.ofTimeDifferenceAndGrace(100, 20),
    )
    .to(out);
  return b;
}

const line = (key: string | null, value: string | null, timestamp: number) => `${key}|${value}|${timestamp}`;
const isNullJoin = (l: string) => l.includes('+null|');

/** The test driver's output for `records`, as lines. */
async function driverOutput(records: readonly Input[], left: string, right: string, out: string) {
  const driver = new TopologyTestDriver(topology(left, right, out).build(), {
    defaultKeySerde: S,
    defaultValueSerde: S,
  });
  try {
    const inputs = { left: driver.createInputTopic(left, S, S), right: driver.createInputTopic(right, S, S) };
    for (const r of records) await inputs[r.topic].pipeInput(r.key, r.value, r.timestamp);
    return driver
      .createOutputTopic(out, S, S)
      .readRecordsToList()
      .map((r) => line(r.key, r.value, r.timestamp));
  } finally {
    await driver.close();
  }
}

async function produceAll(records: readonly Input[], names: { left: string; right: string }): Promise<void> {
  await Promise.all(
    (['left', 'right'] as const).map((side) =>
      produce(
        names[side],
        records
          .filter((r) => r.topic === side)
          .map(({ key, value, timestamp, partition }) => ({ key, value, timestamp, partition })),
      ),
    ),
  );
}

async function startApp(
  applicationId: string,
  stateDir: string,
  [left, right, out]: readonly string[],
  processingGuarantee: 'exactly_once' | 'at_least_once' = 'exactly_once',
) {
  const app = new KafkaStreams(topology(left!, right!, out!).build(), {
    applicationId,
    brokers: testBrokers(),
    defaultKeySerde: S,
    defaultValueSerde: S,
    processingGuarantee,
    commitIntervalMs: 200,
    maxTaskIdleMs: 1000,
    stateDir,
    logger: 'warn',
  });
  apps.push(app);
  await app.start();
  return app;
}

/** The output topic read read_committed until `count` records (a null key reads as '': no input key is empty). */
async function readOutput(out: string, count: (lines: string[]) => boolean): Promise<string[]> {
  const asLines = (rs: Awaited<ReturnType<typeof readTopic>>) =>
    rs.map((r) => line(r.key === '' ? null : r.key, r.value.toString(), r.timestamp));
  return asLines(await readTopic(out, (rs) => count(asLines(rs)), { timeoutMs: 90_000, settleMs: 1_000 }));
}

describe('stream-stream left join on the broker', () => {
  it.each(['exactly_once', 'at_least_once'] as const)(
    '%s: writes, read_committed, exactly what the test driver gives for the same input',
    async (guarantee) => {
      const [left, right, out] = await Promise.all([
        topics.create(`ss-left-${guarantee}`, 2),
        topics.create(`ss-right-${guarantee}`, 2),
        topics.create(`ss-out-${guarantee}`, 2),
      ]);
      const records = input(600, Date.now() - 10 * 60_000);
      const expected = await driverOutput(records, left, right, out);
      expect(expected.filter(isNullJoin).length).toBeGreaterThan(10);
      expect(expected.filter((l) => !isNullJoin(l)).length).toBeGreaterThan(50);

      await produceAll(records, { left, right });
      const applicationId = uniqueName('ss-join-app');
      topics.cleanUpPrefix(applicationId);
      await startApp(applicationId, tempStateDir(), [left, right, out], guarantee);
      const actual = await readOutput(out, (lines) => lines.length >= expected.length);
      // Output partitions interleave the two tasks' records: compared as sorted lists.
      expect(actual.sort()).toEqual(expected.sort());

      // As Kafka Streams: the window stores' changelogs are not compacted (every record is its own
      // entry) and kept a day past the store's retention; the shared store's is compacted.
      const admin = testKafka().admin();
      await admin.connect();
      const changelog = (store: string) => `${applicationId}-${store}-changelog`;
      const described = await admin.describeConfigs({
        resources: ['KSTREAM-JOINTHIS-0000000004-store', 'KSTREAM-OUTERSHARED-0000000004-store'].map(
          (store) => ({
            type: 2,
            name: changelog(store),
            configNames: ['cleanup.policy', 'retention.ms'],
          }),
        ),
        includeSynonyms: false,
      });
      await admin.disconnect();
      const configs = Object.fromEntries(
        described.resources.map((r) => [
          r.resourceName,
          Object.fromEntries(r.configEntries.map((e) => [e.configName, e.configValue])),
        ]),
      );
      expect(configs[changelog('KSTREAM-JOINTHIS-0000000004-store')]).toEqual({
        'cleanup.policy': 'delete',
        'retention.ms': String(200 + 20 + 86_400_000),
      });
      expect(configs[changelog('KSTREAM-OUTERSHARED-0000000004-store')]?.['cleanup.policy']).toBe('compact');
    },
    150_000,
  );

  it('restores both window stores and the shared store from their changelogs after a restart on a new state dir', async () => {
    const [left, right, out] = await Promise.all([
      topics.create('ss-restart-left', 2),
      topics.create('ss-restart-right', 2),
      topics.create('ss-restart-out', 2),
    ]);
    const records = input(400, Date.now() - 10 * 60_000);
    const half = records.slice(0, 200);
    const expected = await driverOutput(records, left, right, out);
    // Joined pairs depend only on the order of records, not on when stream time closes a window.
    const joinedInHalf = (await driverOutput(half, left, right, out)).filter((l) => !isNullJoin(l)).length;
    // Pairs of a record before the restart and one after: only a restored window store joins them.
    const acrossRestart = expected.filter((l) => {
      const [, a, b] = /\|v(\d+)\+v(\d+)\|/.exec(l) ?? [];
      return a !== undefined && Math.min(Number(a), Number(b)) < 200 && Math.max(Number(a), Number(b)) >= 200;
    });
    expect(acrossRestart.length).toBeGreaterThan(0);

    const applicationId = uniqueName('ss-restart-app');
    topics.cleanUpPrefix(applicationId);
    await produceAll(half, { left, right });
    const first = await startApp(applicationId, tempStateDir(), [left, right, out]);
    await readOutput(out, (lines) => lines.filter((l) => !isNullJoin(l)).length >= joinedInHalf);
    await first.close();

    // Records still waiting for a partner or for their window to close are only in the changelogs now.
    await produceAll(records.slice(200), { left, right });
    await startApp(applicationId, tempStateDir(), [left, right, out]);
    const actual = await readOutput(out, (lines) => lines.length >= expected.length);
    expect(actual.sort()).toEqual(expected.sort());
  }, 150_000);
});

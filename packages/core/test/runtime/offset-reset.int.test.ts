// Offset reset on the real broker: 'latest' skips what the input held before the application's
// first start but not what came while it was down (the group's committed offsets win), byDuration
// starts each partition at its first record of the last duration (Kafka's offsetsForTimes), and
// 'none' fails the app clearly when the group has no committed offset.
import { describe, expect, it } from 'vitest';
import { topicsForThisFile } from '../../../../scripts/test/kafka.ts';
import {
  AutoOffsetReset,
  KafkaStreams,
  Serdes,
  StreamsBuilder,
  type StreamsConfig,
} from '../../src/index.ts';
import {
  produce,
  type ReadRecord,
  readTopic,
  stopAfterEach,
  tempStateDir,
  testBrokers,
  waitFor,
} from './kafka-helpers.ts';

const topics = topicsForThisFile();
const apps = stopAfterEach((app: KafkaStreams) => app.close({ timeoutMs: 30_000 }));
const S = Serdes.String();

async function setUp(prefix: string) {
  const { input, output, applicationId } = await topics.forApp(`${prefix}`, 2, 1);
  return { input, output, applicationId };
}

/** A pass-through app; its tasks have started (positions set) when this returns. */
async function startApp(
  s: { input: string; output: string; applicationId: string },
  config: Partial<StreamsConfig>,
  offsetResetPolicy?: AutoOffsetReset,
): Promise<KafkaStreams> {
  const builder = new StreamsBuilder();
  builder
    .stream(s.input, { keySerde: S, valueSerde: S, ...(offsetResetPolicy ? { offsetResetPolicy } : {}) })
    .to(s.output, { keySerde: S, valueSerde: S });
  const app = new KafkaStreams(builder.build(), {
    applicationId: s.applicationId,
    brokers: testBrokers(),
    stateDir: tempStateDir(),
    commitIntervalMs: 200,
    logger: 'warn',
    ...config,
  });
  apps.push(app);
  await app.start();
  await waitFor(
    () =>
      app.state === 'RUNNING' &&
      app.metadataForLocalThreads().flatMap((t) => t.activeTasks.filter((k) => k.state === 'RUNNING'))
        .length === 2,
    60_000,
    'both tasks running',
  );
  return app;
}

const values = (records: ReadRecord[]) => records.map((r) => r.value.toString()).sort();
const batch = (name: string, timestamp?: number) =>
  [0, 1, 2, 3].map((i) => ({
    key: `k${i}`,
    value: `${name}-${i}`,
    partition: i % 2,
    ...(timestamp === undefined ? {} : { timestamp }),
  }));

describe('offset reset on the broker', () => {
  it("'latest' skips what was there before the first start, not what came while the app was down", async () => {
    const s = await setUp('or-latest');
    await produce(s.input, batch('before'));
    let app = await startApp(s, { autoOffsetReset: 'latest' });
    await produce(s.input, batch('running'));
    await readTopic(s.output, (r) => r.length >= 4);
    // A clean close commits the offsets; what comes next is read from there.
    await app.close({ timeoutMs: 30_000 });
    await produce(s.input, batch('down'));
    app = await startApp(s, { autoOffsetReset: 'latest' });
    const out = await readTopic(s.output, (r) => r.length >= 8, { settleMs: 2_000 });
    expect(values(out)).toEqual([...values(batchRecords('down')), ...values(batchRecords('running'))].sort());
  });

  it("byDuration (Consumed's, over the config's 'none') starts at the first record of the last duration", async () => {
    const s = await setUp('or-duration');
    const now = Date.now();
    // Partition 0: old then recent records; partition 1: only old ones (it starts at its end).
    await produce(s.input, [
      { key: 'a', value: 'old-0', partition: 0, timestamp: now - 3 * 3_600_000 },
      { key: 'b', value: 'old-1', partition: 0, timestamp: now - 2 * 3_600_000 },
      { key: 'c', value: 'recent-0', partition: 0, timestamp: now - 10 * 60_000 },
      { key: 'd', value: 'old-again', partition: 0, timestamp: now - 4 * 3_600_000 },
      { key: 'e', value: 'old-2', partition: 1, timestamp: now - 3 * 3_600_000 },
    ]);
    await startApp(s, { autoOffsetReset: 'none' }, AutoOffsetReset.byDuration(3_600_000));
    await produce(s.input, [{ key: 'f', value: 'new-1', partition: 1 }]);
    const out = await readTopic(s.output, (r) => r.length >= 3, { settleMs: 2_000 });
    // From the first record at or after now - 1 h on: a later record with an older timestamp too.
    expect(values(out)).toEqual(['new-1', 'old-again', 'recent-0']);
  });

  it("'none' puts the app in ERROR, naming the partitions, when the group has no committed offset", async () => {
    const s = await setUp('or-none');
    const builder = new StreamsBuilder();
    builder.stream(s.input, { keySerde: S, valueSerde: S }).to(s.output);
    const app = new KafkaStreams(builder.build(), {
      applicationId: s.applicationId,
      brokers: testBrokers(),
      stateDir: tempStateDir(),
      autoOffsetReset: 'none',
      logger: 'silent',
    });
    apps.push(app);
    await app.start();
    await waitFor(() => app.state === 'ERROR', 60_000, 'ERROR');
    expect(app.error?.message).toMatch(
      new RegExp(
        `No committed offset for input partition\\(s\\) ${s.input}-\\d.*offset reset policy is 'none'`,
      ),
    );
  });
});

function batchRecords(name: string) {
  return batch(name).map((r) => ({ value: Buffer.from(r.value) }) as ReadRecord);
}

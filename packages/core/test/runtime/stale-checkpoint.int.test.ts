// KIP-1259's stale local state on the real broker: while the instance is away, another writer
// appends to a store's changelog and records after the instance's checkpoint are deleted
// (deleteRecords moves the log start past it). At the next start the store is wiped and restored
// from the log start, with a warning; replaying from the checkpoint would keep keys whose later
// history was deleted.
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { topicsForThisFile } from '../../../../scripts/test/kafka.ts';
import { KafkaStreams } from '../../src/index.ts';
import { countingTopology } from './fixtures/counting-topology.ts';
import {
  produce,
  readTopic,
  stopAfterEach,
  tempStateDir,
  testBrokers,
  testKafka,
  waitFor,
} from './kafka-helpers.ts';

const topics = topicsForThisFile();
const apps = stopAfterEach((app: KafkaStreams) => app.close({ timeoutMs: 30_000 }));
const long = (n: number) => {
  const b = Buffer.alloc(8);
  b.writeBigInt64BE(BigInt(n));
  return b;
};

describe('a checkpoint below the changelog log start', () => {
  it('wipes the store and restores it from the log start, with a warning', async () => {
    const { input, output, applicationId } = await topics.forApp('stale', 1);
    const changelog = `${applicationId}-counts-changelog`;
    const stateDir = tempStateDir();
    const warnings: Array<Record<string, unknown>> = [];
    const newApp = () => {
      const app = new KafkaStreams(countingTopology(input, output), {
        applicationId,
        brokers: testBrokers(),
        stateDir,
        commitIntervalMs: 200,
        logger: pino({ level: 'warn' }, { write: (line: string) => void warnings.push(JSON.parse(line)) }),
      });
      apps.push(app);
      return app;
    };
    await produce(
      input,
      Array.from({ length: 10 }, (_, i) => ({ key: `old${i}`, value: 'x' })),
    );
    const first = newApp();
    await first.start();
    await readTopic(output, (rs) => rs.length >= 10);
    await first.close();

    // Another owner of the task wrote on while this instance was away, then the changelog's
    // first 12 records were deleted: the checkpoint (10) is below the new log start.
    const kafka = testKafka();
    const admin = kafka.admin();
    await admin.connect();
    const [before] = await admin.fetchTopicOffsets(changelog);
    expect(Number(before!.high)).toBe(10);
    await produce(
      changelog,
      Array.from({ length: 5 }, (_, i) => ({ key: `new${i}`, value: long(7 + i), partition: 0 })),
    );
    await admin.alterConfigs({
      validateOnly: false,
      resources: [
        { type: 2, name: changelog, configEntries: [{ name: 'cleanup.policy', value: 'compact,delete' }] },
      ],
    });
    await admin.deleteTopicRecords({ topic: changelog, partitions: [{ partition: 0, offset: '12' }] });
    const [after] = await admin.fetchTopicOffsets(changelog);
    await admin.disconnect();
    expect(Number(after!.low)).toBe(12);

    const second = newApp();
    await second.start();
    await waitFor(() => second.state === 'RUNNING', 60_000, 'RUNNING after the restore');
    const store = second.store<string, number>('counts');
    const entries: Record<string, number> = {};
    for await (const { key, value } of store.all()) entries[key] = value;
    // What a restore from the log start gives: offsets 12..14.
    expect(entries).toEqual({ new2: 9, new3: 10, new4: 11 });
    const warning = warnings.find((w) => String(w.msg).includes("below the changelog's log start"));
    expect(warning).toMatchObject({ store: 'counts', changelog, checkpoint: 10, logStart: 12, end: 15 });
  });
});

// The global stream thread's reader on the partition fetcher: every partition from its checkpoint,
// read on from the log start when retention deleted the records at the checkpoint, and no
// consumer group (until 2026-12-06 it was the single member of a throw-away group).
import { describe, expect, it } from 'vitest';
import { testKafka, topicsForThisFile } from '../../../../scripts/test/kafka.ts';
import { StreamsAdmin } from '../../src/kafka/admin.ts';
import { GlobalConsumer } from '../../src/kafka/global-consumer.ts';
import { produce, stopAfterEach, uniqueName, waitFor } from '../runtime/kafka-helpers.ts';

const topics = topicsForThisFile();
const consumers = stopAfterEach((c: GlobalConsumer) => c.stop());

describe('GlobalConsumer', () => {
  it('reads every partition from its start, from the log start after deleted records, without a group', async () => {
    const topic = await topics.create('global-reader', 2);
    await produce(topic, [
      ...[0, 1, 2, 3, 4].map((i) => ({ key: `a${i}`, value: 'v', partition: 0 })),
      ...[0, 1, 2].map((i) => ({ key: `b${i}`, value: 'v', partition: 1 })),
    ]);
    const admin = await topics.admin();
    // Retention's effect: partition 0 starts at offset 2 now, and the checkpoint (0) is gone.
    await admin.deleteTopicRecords({ topic, partitions: [{ partition: 0, offset: '2' }] });

    const clientId = uniqueName('global-client');
    const kafka = testKafka(clientId);
    const streamsAdmin = new StreamsAdmin(kafka);
    await streamsAdmin.connect();
    const seen = new Map<number, number[]>();
    const positions = new Map<number, number>();
    const crashes: Error[] = [];
    const consumer = new GlobalConsumer(kafka, streamsAdmin);
    consumers.push(consumer);
    await consumer.start(
      new Map([[topic, [0, 1]]]),
      [
        { topic, partition: 0, offset: 0 },
        { topic, partition: 1, offset: 1 },
      ],
      {
        onRecords: async (_t, partition, records) =>
          void seen.set(partition, [...(seen.get(partition) ?? []), ...records.map((r) => r.offset)]),
        onPosition: (_t, partition, next) => void positions.set(partition, next),
        onCrash: (e) => void crashes.push(e),
      },
    );
    await waitFor(() => positions.get(0) === 5 && positions.get(1) === 3, 20_000, 'both partitions read');
    expect(seen.get(0)).toEqual([2, 3, 4]);
    expect(seen.get(1)).toEqual([1, 2]);
    const ids = (await admin.listGroups()).groups.map((g) => g.groupId);
    const { groups } = ids.length > 0 ? await admin.describeGroups(ids) : { groups: [] };
    expect(groups.filter((g) => g.members.some((m) => m.clientId === clientId))).toEqual([]);
    expect(crashes).toEqual([]);
    await streamsAdmin.disconnect();
  });
});

// The restore reader on the partition fetcher: reads each changelog partition from its start to
// its end offset, read_committed, and joins no consumer group on the way (until 2026-12-06 each
// restore was the single member of a throw-away group).
import { describe, expect, it } from 'vitest';
import { testKafka, topicsForThisFile } from '../../../../scripts/test/kafka.ts';
import { restoreChangelogs } from '../../src/kafka/restore-consumer.ts';
import { produce, uniqueName } from '../runtime/kafka-helpers.ts';

const topics = topicsForThisFile();

/** Every group on the broker with a member whose client id is `clientId`. */
async function groupsWithClient(clientId: string): Promise<string[]> {
  const admin = await topics.admin();
  const ids = (await admin.listGroups()).groups.map((g) => g.groupId);
  if (ids.length === 0) return [];
  const { groups } = await admin.describeGroups(ids);
  return groups.filter((g) => g.members.some((m) => m.clientId === clientId)).map((g) => g.groupId);
}

describe('restoreChangelogs', () => {
  it('reads from the start to the end offset, read_committed, without a consumer group', async () => {
    const topic = await topics.create('restore-reader', 2);
    const producer = testKafka().producer({
      transactionalId: uniqueName('restore-reader'),
      idempotent: true,
      maxInFlightRequests: 1,
    });
    await producer.connect();
    const committed = await producer.transaction();
    await committed.send({
      topic,
      messages: [0, 1, 2, 3].map((i) => ({ key: `c${i}`, value: 'v', partition: 0 })),
    });
    await committed.commit();
    const aborted = await producer.transaction();
    await aborted.send({ topic, messages: [{ key: 'aborted', value: 'v', partition: 0 }] });
    await aborted.abort();
    await producer.disconnect();
    // Partition 0: c0-c3 at 0-3, COMMIT at 4, aborted at 5, ABORT at 6 (end 7).
    await produce(
      topic,
      [0, 1, 2].map((i) => ({ key: `p${i}`, value: 'v', partition: 1 })),
    );

    const clientId = uniqueName('restore-client');
    const applied = new Map<number, string[]>();
    const batchEnds = new Map<number, number[]>();
    const groupsSeen: string[][] = [];
    const request = (partition: number, startOffset: number, endOffset: number) => ({
      topic,
      partition,
      startOffset,
      endOffset,
      apply: async (records: Array<{ key: Buffer | null }>, batchEnd: number) => {
        // While the reader runs: a group of the reader's would list it as a member now.
        if (groupsSeen.length === 0) groupsSeen.push(await groupsWithClient(clientId));
        applied.set(partition, [...(applied.get(partition) ?? []), ...records.map((r) => String(r.key))]);
        batchEnds.set(partition, [...(batchEnds.get(partition) ?? []), batchEnd]);
      },
    });
    await restoreChangelogs(testKafka(clientId), { readCommitted: true, timeoutMs: 30_000 }, [
      request(0, 1, 7),
      request(1, 0, 2),
    ]);
    expect(applied.get(0)).toEqual(['c1', 'c2', 'c3']);
    expect(applied.get(1)).toEqual(['p0', 'p1']);
    expect(batchEnds.get(1)?.at(-1)).toBe(2);
    expect(groupsSeen).toEqual([[]]);
  });

  it('fails after its timeout when the end offset is never reached', async () => {
    const topic = await topics.create('restore-timeout', 1);
    await produce(topic, [{ key: 'a', value: 'v' }]);
    const started = Date.now();
    await expect(
      restoreChangelogs(testKafka(), { readCommitted: false, timeoutMs: 1_500 }, [
        { topic, partition: 0, startOffset: 0, endOffset: 5, apply: async () => {} },
      ]),
    ).rejects.toThrow(/restore of 1 changelog partitions did not finish in 1500 ms/);
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});

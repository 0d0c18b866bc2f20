// The broker the project starts honours Kafka transactions as kafkajs speaks them: the ground
// the exactly_once guarantee stands on.
import { describe, expect, it } from 'vitest';
import { testKafka, topicsForThisFile, uniqueName } from './kafka.ts';

const topics = topicsForThisFile();
// The readers' groups go with the file's topics.
const readers = uniqueName('txn-reader');
topics.cleanUpPrefix(readers);

async function readAll(readUncommitted: boolean, topic: string, expected: number): Promise<string[]> {
  const consumer = testKafka().consumer({ groupId: uniqueName(readers), readUncommitted });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const seen: string[] = [];
  await new Promise<void>((resolve) => {
    consumer.run({
      eachBatch: async ({ batch }) => {
        for (const m of batch.messages) seen.push(m.value?.toString() ?? '');
        // The aborted record sits before the last committed one, so a reader that wrongly
        // delivered it would reach `expected` with it inside and the comparison would fail.
        if (seen.length >= expected) resolve();
      },
    });
    setTimeout(resolve, 15_000);
  });
  await consumer.disconnect();
  return seen;
}

describe('kafkajs transactions on the project broker', () => {
  it('read_committed sees only committed records, read_uncommitted sees both', async () => {
    const topic = await topics.create('txn');
    const producer = testKafka().producer({
      transactionalId: uniqueName('txn-producer'),
      idempotent: true,
      maxInFlightRequests: 1,
    });
    await producer.connect();
    const committed = await producer.transaction();
    await committed.send({ topic, messages: [{ value: 'c1' }, { value: 'c2' }] });
    await committed.commit();
    const aborted = await producer.transaction();
    await aborted.send({ topic, messages: [{ value: 'a1' }] });
    await aborted.abort();
    const last = await producer.transaction();
    await last.send({ topic, messages: [{ value: 'c3' }] });
    await last.commit();
    await producer.disconnect();

    expect(await readAll(false, topic, 3)).toEqual(['c1', 'c2', 'c3']);
    expect(await readAll(true, topic, 4)).toEqual(['c1', 'c2', 'a1', 'c3']);
  });
});

// Two producers' aborted transactions interleaved in one partition, aborted in the reverse order
// of their first records, as two tasks writing to one repartition topic can leave them. A
// read_committed kafkajs consumer must see none of their records (unpatched kafkajs 2.2.4 shows
// the first producer's).
import { describe, expect, it } from 'vitest';
import { testKafka, topicsForThisFile } from '../../../../scripts/test/kafka.ts';
import { readTopic } from '../runtime/kafka-helpers.ts';

const topics = topicsForThisFile();

async function transactionalProducer(transactionalId: string) {
  const producer = testKafka().producer({ transactionalId, idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  return producer;
}

describe('read_committed with interleaved aborted transactions', () => {
  it('returns only the committed records', async () => {
    const topic = await topics.create('aborted-interleaved', 1);
    const first = await transactionalProducer(`${topic}-first`);
    const second = await transactionalProducer(`${topic}-second`);
    const send = (t: Awaited<ReturnType<typeof first.transaction>>, values: string[]) =>
      t.send({ topic, messages: values.map((value) => ({ key: value, value })) });

    const t1 = await first.transaction();
    await send(t1, ['aborted-1a', 'aborted-1b']);
    const t2 = await second.transaction();
    await send(t2, ['aborted-2a', 'aborted-2b']);
    // The abort index lists the second transaction before the first. Markers are written after
    // abort() returns; the second producer's next send waits until its marker is written.
    await t2.abort();
    const t2b = await second.transaction();
    await send(t2b, ['aborted-2c']);
    await t1.abort();
    await t2b.abort();
    const t3 = await first.transaction();
    await send(t3, ['committed']);
    await t3.commit();
    await Promise.all([first.disconnect(), second.disconnect()]);

    const records = await readTopic(topic, (r) => r.some((x) => x.key === 'committed'), {
      timeoutMs: 30_000,
      settleMs: 1_000,
    });
    expect(records.map((r) => r.key)).toEqual(['committed']);
  });
});

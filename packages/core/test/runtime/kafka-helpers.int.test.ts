// The tests' input producer must write each record once, also when kafkajs retries a produce
// request that took effect: a duplicated input record looks like an exactly_once duplicate in the
// output (long-outage.int.test.ts, 2026-12-05: the first batch written twice after a
// NOT_LEADER_OR_FOLLOWER on a new topic).
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKey, FaultProxy } from '../../../../scripts/test/fault-proxy.ts';
import { topicsForThisFile } from '../../../../scripts/test/kafka.ts';
import { produce, testBrokers, testKafka } from './kafka-helpers.ts';

const topics = topicsForThisFile();
const proxy = new FaultProxy(0);

beforeAll(() => proxy.start());
afterAll(() => proxy.close());

describe('produce (the tests’ input producer)', () => {
  it('writes each record once when the answer to a produce request is lost and kafkajs retries it', async () => {
    const topic = await topics.create('produce-once', 4);
    const through = new Kafka({
      brokers: testBrokers(),
      socketFactory: proxy.socketFactory(),
      logLevel: logLevel.NOTHING,
    });
    const records = Array.from({ length: 400 }, (_, i) => ({ key: `k${i % 20}`, value: `v${i}` }));
    // The request reaches the broker and is written; its answer never comes back.
    proxy.loseNextResponses([ApiKey.Produce], 1);
    await produce(topic, records, through);
    expect(proxy.lost).toBe(1);
    const admin = testKafka().admin();
    await admin.connect();
    try {
      const offsets = await admin.fetchTopicOffsets(topic);
      const written = offsets.reduce((sum, o) => sum + Number(o.high) - Number(o.low), 0);
      expect(written).toBe(records.length);
    } finally {
      await admin.disconnect();
    }
  });
});

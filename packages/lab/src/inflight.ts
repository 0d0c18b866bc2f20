// The thread says max.in.flight.requests.per.connection=5 means "always one request in flight".
// Measured: 5 concurrent sends to one partition through the proxy, whose answers are delayed so
// that requests pile up, with and without lost answers; the proxy counts requests in flight on the
// connection and verify checks the order of the sequence numbers in the partition.
import { verifyTopic } from '@kstreams/cli';
import { Partitioners } from 'kafkajs';
import { ApiKey } from '../../../scripts/test/fault-proxy.ts';
import { type ProducerConfigId, producerSettings } from './configs.ts';
import type { LabContext } from './context.ts';

export interface InFlightResult {
  config: ProducerConfigId;
  lostAnswers: number;
  sends: number;
  maxInFlight: number;
  visible: number;
  duplicates: number;
  losses: number;
  outOfOrder: number;
  failedSends: number;
}

export async function measureInFlight(
  ctx: LabContext,
  config: ProducerConfigId,
  { sends = 200, loseAnswers = 0 } = {},
): Promise<InFlightResult> {
  const topic = await ctx.createTopic(`inflight-${config}-${loseAnswers}`, 1);
  const { client, acks } = producerSettings(config);
  const producer = ctx.kafka('proxy').producer({
    ...client,
    maxInFlightRequests: 5,
    allowAutoTopicCreation: false,
    createPartitioner: Partitioners.DefaultPartitioner,
  });
  await producer.connect();
  // Metadata and the connection first, so the burst is not reordered by a first send's lookups.
  await producer.send({ topic, acks, messages: [{ key: 'warm-up', value: '1' }] });
  const { proxy } = ctx;
  proxy.maxInFlight.delete(ApiKey.Produce);
  proxy.delayResponses([ApiKey.Produce], 20);
  const lostBefore = proxy.lost;
  let failedSends = 0;
  try {
    // The answers to the burst's first requests are lost (the broker has written them).
    if (loseAnswers > 0) proxy.loseNextResponses([ApiKey.Produce], loseAnswers);
    // One record per send, all started at once: the client queues what exceeds its limit.
    const pending = Array.from({ length: sends }, (_, i) => {
      return producer.send({ topic, acks, messages: [{ key: 'k0', value: String(i + 1) }] }).catch(() => {
        failedSends++;
      });
    });
    await Promise.all(pending);
  } finally {
    proxy.delayResponses([], 0);
    await producer.disconnect().catch(() => {});
  }
  const report = await verifyTopic({
    brokers: ctx.brokers,
    topic,
    expectSequences: true,
    against: new Map([
      ['k0', sends],
      ['warm-up', 1],
    ]),
    idleMs: 1000,
  });
  return {
    config,
    lostAnswers: proxy.lost - lostBefore,
    sends,
    maxInFlight: proxy.maxInFlight.get(ApiKey.Produce) ?? 0,
    visible: report.records,
    duplicates: report.counts.duplicate + report.counts.excess,
    losses: report.counts.gap + report.counts.loss,
    outOfOrder: report.counts.outOfOrder,
    failedSends,
  };
}

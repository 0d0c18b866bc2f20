// The payment-scoring example's topology in the test driver, calling the real (local) scoring
// service over HTTP: every payment scored, each customer's results in input order.
import { Serdes } from '@kstreams/core';
import { TopologyTestDriver } from '@kstreams/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payment } from '../src/payment-scoring/run.ts';
import {
  type ScoringService,
  scorePayment,
  startScoringService,
} from '../src/payment-scoring/scoring-service.ts';
import { paymentScoringTopology } from '../src/payment-scoring/topology.ts';

describe('payment scoring (HTTP calls from a topology)', () => {
  let service: ScoringService;
  beforeAll(async () => {
    service = await startScoringService({ delayMs: 5 });
  });
  afterAll(async () => {
    await service.close();
  });

  it('the service scores amounts and sends those over 1,000 to review; refuses what is not a payment', () => {
    expect(scorePayment('c1,100')).toEqual({ score: 5, decision: 'approve' });
    expect(scorePayment('c1,1200')).toEqual({ score: 60, decision: 'review' });
    expect(() => scorePayment('c1')).toThrow(/not a payment "<customer>,<amount>": c1/);
  });

  it('scores every payment through the service, in input order per customer', async () => {
    const S = Serdes.String();
    const topology = paymentScoringTopology({ input: 'payments', output: 'scored', scoringUrl: service.url });
    const driver = new TopologyTestDriver(topology);
    const input = driver.createInputTopic('payments', S, S);
    const payments = Array.from({ length: 30 }, (_, i) => payment(i));
    for (const p of payments) await input.pipeInput(p.key, p.value);
    const out = driver.createOutputTopic('scored', S, S).readKeyValuesToList();
    expect(out).toEqual(
      payments.map((p) => {
        const { score, decision } = scorePayment(p.value);
        return { key: p.key, value: `${p.value},${score},${decision}` };
      }),
    );
    expect(service.answered).toBe(30);
    expect(out.some((r) => r.value?.endsWith(',review'))).toBe(true);
    await driver.close();
  });
});

// The payment-scoring example end to end on the broker (what `npm run payment-scoring` runs):
// exactly_once_v2, 200 calls in flight per task; every payment scored exactly once, each
// customer's results in input order.
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { testBrokers } from '../../../scripts/test/kafka.ts';
import { payment, runPaymentScoring } from '../src/payment-scoring/run.ts';
import { scorePayment } from '../src/payment-scoring/scoring-service.ts';

describe('the payment-scoring example', () => {
  it('scores 2,000 payments exactly once, in order per customer', async () => {
    const payments = 2_000;
    const result = await runPaymentScoring({
      brokers: testBrokers(),
      payments,
      delayMs: 20,
      maxInFlight: 200,
      logger: pino({ level: 'silent' }),
    });
    const expected = new Map<string, string[]>();
    for (let i = 0; i < payments; i++) {
      const { key, value } = payment(i);
      const { score, decision } = scorePayment(value);
      expected.set(key, [...(expected.get(key) ?? []), `${value},${score},${decision}`]);
    }
    expect(result.scored).toEqual(expected);
    expect(result.calls).toBeGreaterThanOrEqual(payments);
  }, 180_000);
});

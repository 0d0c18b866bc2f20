// The payment-scoring example end to end on the broker (what `npm run payment-scoring` runs):
// exactly_once_v2, 200 calls in flight per task; every payment scored exactly once, each
// customer's results in input order.
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { testBrokers } from '../../../scripts/test/kafka.ts';
import { expectedScores, runPaymentScoring } from '../src/payment-scoring/run.ts';

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
    expect(result.scored).toEqual(expectedScores(payments));
    // One of them by hand: customer c7's first payment (i = 7, amount 259).
    expect(result.scored.get('c7')?.[0]).toBe('c7,259,13,approve');
    expect(result.calls).toBeGreaterThanOrEqual(payments);
  }, 180_000);
});

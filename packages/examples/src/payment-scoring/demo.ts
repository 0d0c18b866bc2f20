// `npm run demo -- payment-scoring`: payments scored by an HTTP service from a topology
// (mapValuesAsync, 200 calls in flight per task) under exactly_once_v2; every scored payment read
// back read_committed and checked: each once, each customer's in input order.
import { DemoFailure, num, runDemo, say, secs } from '../common/demo.ts';
import { expectedScores, runPaymentScoring } from './run.ts';

const PAYMENTS = 5_000;
const DELAY_MS = 20;

export function paymentScoringDemo(): Promise<never> {
  return runDemo('payment-scoring', async (ctx) => {
    say(`Scoring ${num(PAYMENTS)} payments with a local HTTP service answering in ${DELAY_MS} ms ...`);
    const result = await runPaymentScoring({
      brokers: ctx.brokers,
      payments: PAYMENTS,
      delayMs: DELAY_MS,
      maxInFlight: 200,
      logger: ctx.logger,
    });
    const expected = expectedScores(PAYMENTS);
    for (const [customer, scores] of expected) {
      const got = result.scored.get(customer) ?? [];
      if (got.join('|') !== scores.join('|'))
        throw new DemoFailure(
          `customer ${customer}: expected ${scores.join(' | ')}, read ${got.join(' | ')}`,
        );
    }
    say(`  c7: ${result.scored.get('c7')?.join(' | ')}`);
    say(
      `${num(PAYMENTS)} payments scored exactly once, in order per customer, in ${secs(result.seconds * 1000)} ` +
        `(one call at a time: ${secs(PAYMENTS * DELAY_MS)}); the service answered ${num(result.calls)} calls`,
    );
  });
}

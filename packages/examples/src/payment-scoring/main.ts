// `npm run payment-scoring -w @kstreams/examples`: payments scored by an HTTP service from a
// topology (mapValuesAsync), end to end on the broker at KAFKA_BROKERS (default localhost:9092).
// PAYMENTS (default 5,000), SCORING_DELAY_MS (default 20) and MAX_IN_FLIGHT (default 200) vary it.
import { createLogger } from '../common/logger.ts';
import { runPaymentScoring } from './run.ts';

const env = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 1) {
    console.error(`payment-scoring: ${name} must be a positive integer, got "${process.env[name]}"`);
    process.exit(2);
  }
  return value;
};
const payments = env('PAYMENTS', 5_000);
const delayMs = env('SCORING_DELAY_MS', 20);
const maxInFlight = env('MAX_IN_FLIGHT', 200);
const brokers = (process.env.KAFKA_BROKERS ?? 'localhost:9092').split(',');

const result = await runPaymentScoring({
  brokers,
  payments,
  delayMs,
  maxInFlight,
  logger: createLogger('warn', { name: 'payment-scoring' }),
});
const sample = [...result.scored.values()][0] ?? [];
console.log(`customer ${sample[0]?.split(',')[0]}: ${sample.slice(0, 3).join(' | ')} ...`);
console.log(
  `${payments} payments scored by a service answering in ${delayMs} ms, maxInFlight ${maxInFlight}: ` +
    `${result.seconds.toFixed(1)} s (${Math.round(payments / result.seconds)} payments/s, ` +
    `one call at a time would take ${((payments * delayMs) / 1000).toFixed(0)} s)`,
);

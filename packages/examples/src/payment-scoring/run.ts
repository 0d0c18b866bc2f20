// One run of the payment-scoring example end to end: the scoring service started, the payments
// produced, the app started (exactly_once_v2), every scored payment read back read_committed, then
// everything closed and the run's topics deleted. main.ts prints it; a broker test checks it.
import { KafkaStreams } from '@kstreams/core';
import type { Logger } from 'pino';
import { exampleKafka, feederProducer } from '../common/kafka.ts';
import { ensureTopics } from '../common/topics.ts';
import { scorePayment, startScoringService } from './scoring-service.ts';
import { paymentScoringTopology } from './topology.ts';

export interface PaymentScoringRun {
  brokers: readonly string[];
  payments: number;
  /** The scoring service's answer time. */
  delayMs: number;
  maxInFlight: number;
  logger: Logger;
}

export interface PaymentScoringResult {
  /** Scored payments per customer, in the order the output topic holds them. */
  scored: Map<string, string[]>;
  /** Seconds from the app's start to the last scored payment read. */
  seconds: number;
  /** Requests the scoring service answered (more than `payments` if a call was retried). */
  calls: number;
}

const CUSTOMERS = 1_000;

/** The i-th payment: customer `c<i % 1000>`, an amount that sends about one in five to review. */
export function payment(i: number): { key: string; value: string } {
  return { key: `c${i % CUSTOMERS}`, value: `c${i % CUSTOMERS},${(i * 37) % 1_300}` };
}

/** What the output must hold: each customer's payments scored, in input order, each once. */
export function expectedScores(payments: number): Map<string, string[]> {
  const expected = new Map<string, string[]>();
  for (let i = 0; i < payments; i++) {
    const { key, value } = payment(i);
    const { score, decision } = scorePayment(value);
    expected.set(key, [...(expected.get(key) ?? []), `${value},${score},${decision}`]);
  }
  return expected;
}

export async function runPaymentScoring(run: PaymentScoringRun): Promise<PaymentScoringResult> {
  const id = `payment-scoring-${Date.now().toString(36)}`;
  const input = `${id}-payments`;
  const output = `${id}-scored`;
  const kafka = exampleKafka(run.brokers, id, run.logger);
  const admin = kafka.admin();
  await admin.connect();
  const service = await startScoringService({ delayMs: run.delayMs });
  let app: KafkaStreams | undefined;
  const consumer = kafka.consumer({ groupId: `${id}-reader`, readUncommitted: false });
  try {
    await ensureTopics(admin, [input, output], 4);
    const producer = feederProducer(kafka);
    await producer.connect();
    const all = Array.from({ length: run.payments }, (_, i) => payment(i));
    for (let i = 0; i < all.length; i += 1_000)
      await producer.send({ topic: input, messages: all.slice(i, i + 1_000) });
    await producer.disconnect();

    const scored = new Map<string, string[]>();
    let read = 0;
    await consumer.connect();
    await consumer.subscribe({ topic: output, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ message }) => {
        const key = message.key!.toString();
        scored.set(key, [...(scored.get(key) ?? []), message.value!.toString()]);
        read += 1;
      },
    });

    app = new KafkaStreams(
      paymentScoringTopology({ input, output, scoringUrl: service.url, maxInFlight: run.maxInFlight }),
      {
        applicationId: id,
        brokers: [...run.brokers],
        processingGuarantee: 'exactly_once_v2',
        logger: run.logger.child({ component: 'kstreams' }),
      },
    );
    const started = performance.now();
    await app.start();
    const deadline = Date.now() + 120_000;
    while (read < run.payments && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    if (read < run.payments) throw new Error(`read ${read} of ${run.payments} scored payments in 120 s`);
    return { scored, seconds: (performance.now() - started) / 1000, calls: service.answered };
  } finally {
    await app?.close();
    await consumer.disconnect().catch(() => {});
    await service.close();
    await admin.deleteTopics({ topics: [input, output] }).catch(() => {});
    await admin.disconnect();
  }
}

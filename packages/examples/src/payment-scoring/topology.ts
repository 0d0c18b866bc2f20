// Calling an HTTP API from a topology (docs/async-processing.md): each payment is scored by the
// scoring service with mapValuesAsync, up to `maxInFlight` calls at once per task, the payments
// of one customer (the key) one after another and their results in input order.
import { Serdes, StreamsBuilder, type Topology } from '@kstreams/core';

export interface PaymentScoringOptions {
  input: string;
  output: string;
  /** The scoring service's base URL (scoring-service.ts, or a real one). */
  scoringUrl: string;
  /** Calls in flight per task; default 200. */
  maxInFlight?: number;
  /** A call running longer fails the record (the processing exception handler decides); default 5,000 ms. */
  timeoutMs?: number;
}

/** POSTs the payment to `<scoringUrl>/score`; `signal` aborts it on the timeout or a rollback. */
export async function callScoring(scoringUrl: string, payment: string, signal: AbortSignal): Promise<string> {
  const response = await fetch(`${scoringUrl}/score`, { method: 'POST', body: payment, signal });
  const body = await response.text();
  if (!response.ok) throw new Error(`scoring answered ${response.status}: ${body}`);
  return body;
}

export function paymentScoringTopology(options: PaymentScoringOptions): Topology {
  const S = Serdes.String();
  const builder = new StreamsBuilder();
  builder
    .stream<string, string>(options.input, { keySerde: S, valueSerde: S })
    .mapValuesAsync(
      async (payment: string, _customer, { signal }) => {
        const { score, decision } = JSON.parse(await callScoring(options.scoringUrl, payment, signal));
        return `${payment},${score},${decision}`;
      },
      {
        maxInFlight: options.maxInFlight ?? 200,
        timeoutMs: options.timeoutMs ?? 5_000,
        name: 'score-payment',
      },
    )
    .to(options.output, { keySerde: S, valueSerde: S });
  return builder.build();
}

// The streams family: kstreams' word count (the example's topology), every connection through the
// lab's proxy. Reports its state and metrics every 200 ms.
import { KafkaStreams, type ProcessingGuarantee } from '@kstreams/core';
import { wordCountTopology } from '@kstreams/examples';
import { pino } from 'pino';
import { proxiedSocketFactory } from '../../../../scripts/test/fault-proxy.ts';
import { childOptions, report } from '../child.ts';

export interface StreamsOptions {
  brokers: string[];
  proxyPort: number;
  applicationId: string;
  input: string;
  output: string;
  guarantee: ProcessingGuarantee;
  commitIntervalMs: number;
  stateDir: string;
  sessionTimeoutMs: number;
}

const o = childOptions<StreamsOptions>();
const app = new KafkaStreams(wordCountTopology(o.input, o.output), {
  applicationId: o.applicationId,
  brokers: o.brokers,
  socketFactory: proxiedSocketFactory(o.proxyPort),
  processingGuarantee: o.guarantee,
  commitIntervalMs: o.commitIntervalMs,
  // The lab counts every update (1..n per word) to see duplicates and losses: no record cache.
  statestoreCacheMaxBytes: 0,
  stateDir: o.stateDir,
  logger: pino({ level: process.env.LAB_LOG_LEVEL ?? 'silent' }, pino.destination(2)),
  consumer: { sessionTimeoutMs: o.sessionTimeoutMs, heartbeatIntervalMs: 500 },
  // A transaction stays open for a commit interval; D1's first run commits only after 60 s.
  producer: { transactionTimeoutMs: Math.max(10_000, 2 * o.commitIntervalMs) },
});
app.on('stateChange', (state) => report('state', { state }));
setInterval(() => report('metrics', { state: app.state, ...app.metrics() }), 200).unref();
process.on('SIGTERM', async () => {
  await app.close({ timeoutMs: 10_000 });
  process.exit(0);
});
await app.start();

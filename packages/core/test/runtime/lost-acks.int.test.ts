// Acknowledgements lost on the way: the broker writes the records (and, under exactly_once, may
// commit the transaction) but the app never hears back, as when a connection drops or a broker
// restarts with a request in flight. A proxy between the app and the broker cuts the
// connection instead of delivering those answers. The producer's sequence numbers are then behind
// the broker's, and only a new producer gets past it: the app must recover by itself, with no
// word lost under at_least_once and exact counts under exactly_once.
import { describe, expect, it, onTestFinished } from 'vitest';
import { ApiKey, FaultProxy } from '../../../../scripts/test/fault-proxy.ts';
import { topicsForThisFile } from '../../../../scripts/test/kafka.ts';
import { KafkaStreams, type ProcessingGuarantee } from '../../src/index.ts';
import { countingTopology } from './fixtures/counting-topology.ts';
import {
  countSequences,
  highestCounts,
  produce,
  readTopic,
  stopAfterEach,
  tempStateDir,
  testBrokers,
  waitFor,
} from './kafka-helpers.ts';

const topics = topicsForThisFile();
const apps = stopAfterEach((app: KafkaStreams) => app.close({ timeoutMs: 30_000 }));

const KEYS = Array.from({ length: 20 }, (_, i) => `k${i}`);
const BATCHES = 12;
const PER_BATCH = 400;

describe('acknowledgements lost on the way', () => {
  for (const guarantee of ['at_least_once', 'exactly_once', 'exactly_once_v2'] as ProcessingGuarantee[]) {
    it(`${guarantee}: recovers by itself, with a new producer`, async () => {
      // The app reaches the test broker through a routed proxy of its own (its socketFactory).
      const proxy = new FaultProxy(0);
      await proxy.start();
      onTestFinished(() => proxy.close());
      // Fewer output partitions than tasks: under at_least_once the tasks' records meet in the
      // shared producer's sequence numbers of each output partition.
      const { input, output, applicationId } = await topics.forApp('acks', 4, 2);
      const batch = (b: number) =>
        Array.from({ length: PER_BATCH }, (_, i) => ({
          key: KEYS[(b * PER_BATCH + i) % KEYS.length]!,
          value: 'x',
        }));
      await produce(input, batch(0));

      const app = new KafkaStreams(countingTopology(input, output), {
        applicationId,
        brokers: testBrokers(),
        socketFactory: proxy.socketFactory(),
        processingGuarantee: guarantee,
        commitIntervalMs: 200,
        // Few retries, so that the lost answers reach the runtime as failed sends within the
        // window rather than being retried past it.
        producer: { retries: 1 },
        stateDir: tempStateDir(),
        logger: 'error',
      });
      apps.push(app);
      await app.start();
      await waitFor(() => app.metrics().processedRecords >= PER_BATCH, 60_000, 'the first batch');

      // Input keeps arriving while, for 2 s, every answer to a produce or a transaction commit
      // is lost.
      proxy.loseResponses(
        [ApiKey.Produce, ApiKey.EndTxn, ApiKey.TxnOffsetCommit, ApiKey.AddOffsetsToTxn],
        2_000,
      );
      const lostBefore = proxy.lost;
      for (let b = 1; b < BATCHES; b++) {
        await produce(input, batch(b));
        await new Promise((r) => setTimeout(r, 250));
      }
      const n = (BATCHES * PER_BATCH) / KEYS.length;

      const { highest, update } = highestCounts();
      const records = await readTopic(
        output,
        (r) => {
          update(r);
          return KEYS.every((k) => (highest.get(k) ?? 0) >= n) || app.state === 'ERROR';
        },
        { timeoutMs: 120_000, settleMs: 1_000 },
      );
      const metrics = app.metrics();
      const why = JSON.stringify({ state: app.state, lost: proxy.lost - lostBefore, metrics });
      expect(proxy.lost - lostBefore, why).toBeGreaterThan(0);
      expect(app.state, why).toBe('RUNNING');
      expect(metrics.rollbacks, why).toBeGreaterThan(0);
      const seqs = countSequences(records);
      if (guarantee !== 'at_least_once') {
        const exact = Array.from({ length: n }, (_, i) => i + 1);
        for (const k of KEYS) expect(seqs.get(k), `${k}: ${why}`).toEqual(exact);
      } else {
        // Replays may count a record twice; no key may be counted short.
        for (const k of KEYS) expect(highest.get(k) ?? 0, `${k}: ${why}`).toBeGreaterThanOrEqual(n);
      }
    }, 240_000);
  }
});

// A task whose producer is fenced before the task ever committed: its replacement must start from
// the earliest offset, not from where the consumer stood when the old task stopped. (Found in CI:
// a broker restart aborted a young task's transaction by timeout, and the replacement skipped the
// records whose output had been aborted.)
import { describe, expect, it } from 'vitest';
import { testKafka, topicsForThisFile } from '../../../../scripts/test/kafka.ts';
import { KafkaStreams } from '../../src/index.ts';
import { countingTopology } from './fixtures/counting-topology.ts';
import {
  countSequences,
  produce,
  readTopic,
  stopAfterEach,
  tempStateDir,
  testBrokers,
  waitFor,
} from './kafka-helpers.ts';

const topics = topicsForThisFile();
const apps = stopAfterEach((app: KafkaStreams) => app.close({ timeoutMs: 30_000 }));

const KEYS = ['a', 'b', 'c', 'd'];
const records = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ key: KEYS[i % KEYS.length]!, value: 'x' }));

/** Takes over a transactional id the way a new owner of the task would: the old producer is fenced. */
async function fence(transactionalId: string): Promise<void> {
  const producer = testKafka().producer({ transactionalId, idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  const t = await producer.transaction();
  await t.abort();
  await producer.disconnect();
}

describe('exactly_once, a task fenced before its first commit', () => {
  it('starts again from the earliest offset and the output stays exact', async () => {
    const { input, output, applicationId } = await topics.forApp('fence', 1);
    await produce(input, records(200));

    const app = new KafkaStreams(countingTopology(input, output), {
      applicationId,
      brokers: testBrokers(),
      processingGuarantee: 'exactly_once',
      // No commit comes due before the fence: everything processed stays in the open transaction.
      // The fence shows at the first commit, so this is also how long the test waits for it
      // (60 s before 2026-12-06; the first 200 records took 0.9 s then, under a load of 18).
      commitIntervalMs: 10_000,
      producer: { transactionTimeoutMs: 120_000 },
      stateDir: tempStateDir(),
      logger: 'warn',
    });
    apps.push(app);
    await app.start();
    await waitFor(
      () => app.metrics().processedRecords >= 200,
      60_000,
      'the first 200 records to be processed',
    );
    expect(app.metrics().commits).toBe(0);

    await fence(`${applicationId}-0_0`);
    await produce(input, records(100));
    await waitFor(() => app.metrics().fencedTasks >= 1, 60_000, 'the task to notice it is fenced');
    // The replacement processes all 300 records again, from offset 0.
    await waitFor(() => app.metrics().processedRecords >= 200 + 300, 60_000, 'the replacement to catch up');
    await app.close({ timeoutMs: 30_000 });

    const out = await readTopic(output, (r) => r.length >= 300, { timeoutMs: 30_000, settleMs: 1_000 });
    const seqs = countSequences(out);
    const expected = Array.from({ length: 75 }, (_, i) => i + 1);
    for (const key of KEYS) expect(seqs.get(key), `counts of ${key}`).toEqual(expected);
  });
});

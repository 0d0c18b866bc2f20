// The dead-letter queue (KIP-1034) on the real broker under both guarantees: input with records
// that fail deserialization, processing and serialization at the sink, every handler answering
// continue. Nothing is lost: each input record is in the output or in the DLQ, with KIP-1034's
// headers; under exactly_once a SIGKILL mid-run leaves neither duplicates nor aborted DLQ records.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { topicsForThisFile } from '../../../../scripts/test/kafka.ts';
import { KafkaStreams } from '../../src/index.ts';
import { ChildApp, prepareChildApp } from './child-app.ts';
import {
  continueOnEveryError,
  deadLetterTopology,
  EXCEPTION_NAME,
  inputValue,
  poison,
} from './fixtures/dead-letter-topology.ts';
import {
  produce,
  type ReadRecord,
  readTopic,
  stopAfterEach,
  testBrokers,
  uniqueName,
  waitFor,
} from './kafka-helpers.ts';

const N = 2_000;
const topics = topicsForThisFile();
const apps = stopAfterEach((app: KafkaStreams) => app.close({ timeoutMs: 30_000 }));
const children = stopAfterEach((child: ChildApp) => child.kill());
let input: string;
const poisoned = [...Array(N).keys()].filter((i) => poison(i) !== undefined);
const good = N - poisoned.length;

beforeAll(async () => {
  await prepareChildApp('dead-letter-app.ts');
  input = await topics.create('dlq-in', 2);
  // Record i goes to partition i % 2, so its offset there is floor(i / 2).
  await produce(
    input,
    [...Array(N).keys()].map((i) => ({ key: String(i), value: inputValue(i), partition: i % 2 })),
  );
});

async function outputs(name: string) {
  const applicationId = uniqueName(`dlq-${name}-app`);
  topics.cleanUpPrefix(applicationId);
  return {
    applicationId,
    output: await topics.create(`dlq-${name}-out`, 2),
    dlq: await topics.create(`dlq-${name}-dlq`, 1),
  };
}

const text = (h: Buffer | string | undefined) => h?.toString();

/** Every input record once: good ones upper-cased in the output, poisoned ones in the DLQ with their headers. */
function expectEveryRecordOnce(output: ReadRecord[], dlq: ReadRecord[]) {
  const outKeys = output.map((r) => Number(r.key)).sort((a, b) => a - b);
  const expectedOut = [...Array(N).keys()].filter((i) => poison(i) === undefined);
  expect(outKeys).toEqual(expectedOut);
  for (const r of output) expect(r.value.toString()).toBe(`LINE ${r.key}`);
  expect(dlq.map((r) => Number(r.key)).sort((a, b) => a - b)).toEqual(poisoned);
  const wrong = dlq.filter((r) => {
    const i = Number(r.key);
    const h = r.headers;
    return (
      !r.value.equals(inputValue(i)) ||
      text(h['__streams.errors.exception']) !== EXCEPTION_NAME[poison(i)!] ||
      !text(h['__streams.errors.message']) ||
      !text(h['__streams.errors.stacktrace'])?.startsWith(EXCEPTION_NAME[poison(i)!]) ||
      text(h['__streams.errors.topic']) !== input ||
      text(h['__streams.errors.partition']) !== String(i % 2) ||
      text(h['__streams.errors.offset']) !== String(Math.floor(i / 2))
    );
  });
  expect(wrong.map((r) => ({ key: r.key, headers: r.headers }))).toEqual([]);
}

describe('dead-letter queue', () => {
  it('at_least_once: every input record is in the output or in the DLQ, with its source and error', async () => {
    const { applicationId, output, dlq } = await outputs('alo');
    const app = new KafkaStreams(deadLetterTopology(input, output), {
      applicationId,
      brokers: testBrokers(),
      stateDir: mkdtempSync(join(tmpdir(), 'kstreams-dlq-')),
      logger: 'error',
      ...continueOnEveryError(dlq),
    });
    apps.push(app);
    await app.start();
    const [out, dead] = await Promise.all([
      readTopic(output, (r) => r.length >= good, { settleMs: 1_000 }),
      readTopic(dlq, (r) => r.length >= poisoned.length, { settleMs: 1_000 }),
    ]);
    expectEveryRecordOnce(out, dead);
    expect(app.metrics()).toMatchObject({
      skippedRecords: poisoned.length,
      deadLetterRecords: poisoned.length,
    });
  });

  it('exactly_once: the DLQ writes are in the task transactions, so a SIGKILL mid-run leaves no duplicate', async () => {
    const { applicationId, output, dlq } = await outputs('eos');
    const child = new ChildApp({
      KAFKA_BROKERS: testBrokers().join(','),
      APPLICATION_ID: applicationId,
      INPUT_TOPIC: input,
      OUTPUT_TOPIC: output,
      DLQ_TOPIC: dlq,
      STATE_DIR: mkdtempSync(join(tmpdir(), 'kstreams-dlq-eos-')),
    });
    children.push(child);
    child.start();
    // Kill once part of the input is through (the fixture throttles itself to a few seconds).
    const early = await readTopic(dlq, (r) => r.length >= 60, { readUncommitted: true, timeoutMs: 60_000 });
    expect(early.length).toBeGreaterThanOrEqual(60);
    await child.kill();
    const partial = await readTopic(dlq, () => false, { readUncommitted: true, timeoutMs: 2_000 });
    expect(partial.length).toBeLessThan(poisoned.length);
    child.start();
    await waitFor(() => child.state === 'RUNNING', 60_000, 'the restarted app to run');
    const [out, dead] = await Promise.all([
      readTopic(output, (r) => r.length >= good, { settleMs: 3_000 }),
      readTopic(dlq, (r) => r.length >= poisoned.length, { settleMs: 3_000 }),
    ]);
    expectEveryRecordOnce(out, dead);
    await child.stop();
  });
});

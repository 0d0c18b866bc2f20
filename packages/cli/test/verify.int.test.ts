// kstreams verify on the real broker: it finds a duplicate, a gap and a loss put there on
// purpose, ignores an aborted transaction as a read_committed reader must, and passes on the
// output of a real exactly_once word count whose instance was SIGKILLed mid-run.
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { testBrokers, testKafka, topicsForThisFile, uniqueName } from '../../../scripts/test/kafka.ts';
import { ChildApp, prepareChildApp } from '../../core/test/runtime/child-app.ts';
import { produce, readTopic, stopAfterEach, waitFor } from '../../core/test/runtime/kafka-helpers.ts';
import { countWords, makeLines } from '../../core/test/runtime/text-fixtures.ts';
import { runCli, type VerifyReport, verifyTopic } from '../src/index.ts';

const topics = topicsForThisFile();
const children = stopAfterEach((child: ChildApp) => child.kill());
const brokers = testBrokers();

const long = (n: number) => {
  const b = Buffer.alloc(8);
  b.writeBigInt64BE(BigInt(n));
  return b;
};

/** Runs `kstreams verify` in-process; returns its exit code and parsed --json report. */
async function cli(args: string[]): Promise<{ code: number; report: VerifyReport }> {
  const out: string[] = [];
  const code = await runCli(
    ['verify', ...args, '--brokers', brokers.join(','), '--json', '--idle-ms', '1500'],
    {
      out: (s) => out.push(s),
      err: (s) => out.push(s),
    },
  );
  return { code, report: JSON.parse(out.join('')) as VerifyReport };
}

describe('kstreams verify', () => {
  let faulty: string;
  let expectedFile: string;

  beforeAll(async () => {
    faulty = await topics.create('verify-faulty', 2);
    // a: 1,2,3 clean; b: 2 twice (duplicate); c: 2 never written (gap); d: 2 short of expected
    // (loss); all as Serdes.Long values, keys spread over both partitions.
    const rows: Array<[string, number]> = [
      ['a', 1],
      ['b', 1],
      ['c', 1],
      ['d', 1],
      ['a', 2],
      ['b', 2],
      ['b', 2],
      ['c', 3],
      ['a', 3],
      ['b', 3],
    ];
    await produce(
      faulty,
      rows.map(([key, n]) => ({ key, value: long(n) })),
    );
    // An aborted transaction with a 4 for a: a read_uncommitted reader would call it excess.
    const producer = testKafka().producer({
      transactionalId: uniqueName('verify-tx'),
      idempotent: true,
      maxInFlightRequests: 1,
    });
    await producer.connect();
    const tx = await producer.transaction();
    await tx.send({ topic: faulty, messages: [{ key: 'a', value: long(4) }] });
    await tx.abort();
    await producer.disconnect();
    const dir = mkdtempSync(join(tmpdir(), 'kstreams-verify-'));
    expectedFile = join(dir, 'expected.json');
    writeFileSync(expectedFile, JSON.stringify({ a: 3, b: 3, c: 3, d: 3 }));
  });

  it('finds the duplicate and the gap with --expect-sequences, and exits 1', async () => {
    const { code, report } = await cli([faulty, '--expect-sequences']);
    expect(code).toBe(1);
    expect(report.records).toBe(10);
    expect(report.counts).toMatchObject({ duplicate: 1, gap: 1, loss: 0, excess: 0 });
    expect(report.examples.duplicate[0]).toMatchObject({ key: 'b' });
    expect(report.examples.gap[0]).toMatchObject({ key: 'c' });
  });

  it('finds the loss against an expected file', async () => {
    const { code, report } = await cli([faulty, '--expect-sequences', '--against', expectedFile]);
    expect(code).toBe(1);
    expect(report.counts).toMatchObject({ duplicate: 1, gap: 1, loss: 2, excess: 0 });
    expect(report.examples.loss.map((f) => f.key)).toEqual(['d']);
  });

  it('compares against a topic, and passes a clean one with exit 0 from the real bin', async () => {
    const clean = await topics.create('verify-clean', 2);
    await produce(clean, [
      { key: 'x', value: '1' },
      { key: 'y', value: '1' },
      { key: 'x', value: '2' },
    ]);
    const truth = await topics.create('verify-truth', 1);
    await produce(truth, [
      { key: 'x', value: '2' },
      { key: 'y', value: '1' },
    ]);
    const bin = join(import.meta.dirname, '../bin/kstreams.mjs');
    const run = promisify(execFile);
    const { stdout } = await run(process.execPath, [
      bin,
      'verify',
      clean,
      '--expect-sequences',
      '--against',
      truth,
      '--brokers',
      brokers.join(','),
      '--idle-ms',
      '1500',
    ]);
    expect(stdout).toContain('3 records, 2 keys');
    expect(stdout).toContain('OK');
    const failed = await run(process.execPath, [
      bin,
      'verify',
      faulty,
      '--expect-sequences',
      '-b',
      brokers.join(','),
    ]).then(
      () => 0,
      (e: { code: number; stdout: string }) => {
        expect(e.stdout).toContain('duplicates: 1 in 1 keys');
        return e.code;
      },
    );
    expect(failed).toBe(1);
  });

  it('says which topic is missing', async () => {
    const out: string[] = [];
    const code = await runCli(
      ['verify', 'no-such-topic-here', '--expect-sequences', '-b', brokers.join(',')],
      {
        out: () => {},
        err: (s) => out.push(s),
      },
    );
    expect(code).toBe(2);
    expect(out.join('')).toContain('topic "no-such-topic-here" does not exist');
  });

  it('passes on the output of an exactly_once word count SIGKILLed mid-run', async () => {
    await prepareChildApp();
    const { input, output, applicationId } = await topics.forApp('verify-eos', 2);
    const lines = makeLines(20_000, 3, 21);
    await produce(
      input,
      lines.map((value, i) => ({ key: String(i), value })),
    );
    const app = new ChildApp({
      KAFKA_BROKERS: brokers.join(','),
      APPLICATION_ID: applicationId,
      INPUT_TOPIC: input,
      OUTPUT_TOPIC: output,
      STATE_DIR: mkdtempSync(join(tmpdir(), 'kstreams-verify-eos-')),
      PROCESSING_GUARANTEE: 'exactly_once',
      COMMIT_INTERVAL_MS: '100',
    });
    children.push(app);
    app.start();
    await waitFor(
      () => (app.latestMetrics()?.processedRecords ?? 0) > 5_000,
      60_000,
      'processing to be under way',
    );
    await app.kill();
    app.start();
    const truth = countWords(lines);
    const total = [...truth.values()].reduce((a, b) => a + b, 0);
    // Once every count is out (a duplicate would get there early, and verify would say so).
    await readTopic(output, (r) => r.length >= total, { timeoutMs: 120_000 });
    const report = await verifyTopic({ brokers, topic: output, expectSequences: true, against: truth });
    expect(report.counts).toMatchObject({ duplicate: 0, gap: 0, loss: 0, excess: 0, unexpected: 0 });
    expect(report.records).toBe(total);
    expect(report.ok).toBe(true);
  });
});

// kstreams verify on the example word count's default output (exactly_once, record cache on): its
// counts skip values, so the strict sequence check reports gaps on a clean run; the record-cache
// mode (--expect-increasing, and by default with --against alone) passes it, and names a
// duplicated last record and an older count written again as duplicates, not losses.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testBrokers, testKafka, topicsForThisFile, uniqueName } from '../../../scripts/test/kafka.ts';
import { runCli, type VerifyReport } from '../../cli/src/index.ts';
import { lastCounts, produce, readTopic } from '../../core/test/runtime/kafka-helpers.ts';
import { createLogger } from '../src/common/logger.ts';
import type { RunningService } from '../src/common/service.ts';
import { startWordCount } from '../src/word-count/app.ts';
import { BOOK_PATH, readLines } from '../src/word-count/feeder.ts';
import { wordsOf } from '../src/word-count/words.ts';

const topics = topicsForThisFile();
const brokers = testBrokers().join(',');
const long = (n: number) => {
  const b = Buffer.alloc(8);
  b.writeBigInt64BE(BigInt(n));
  return b;
};

async function verify(args: string[]): Promise<{ code: number; report: VerifyReport; text: string }> {
  const run = async (extra: string[]) => {
    const out: string[] = [];
    const code = await runCli(['verify', ...args, '--brokers', brokers, '--idle-ms', '1500', ...extra], {
      out: (s) => out.push(s),
      err: (s) => out.push(s),
    });
    return { code, out: out.join('') };
  };
  const json = await run(['--json']);
  const text = await run([]);
  return { code: json.code, report: JSON.parse(json.out) as VerifyReport, text: text.out };
}

describe('kstreams verify on the example word count’s default output', () => {
  const applicationId = uniqueName('verify-cached');
  const input = `${applicationId}-text-input`;
  const output = `${applicationId}-word-counts`;
  const truth = new Map<string, number>();
  let service: RunningService | undefined;
  let expectedFile: string;

  beforeAll(async () => {
    topics.cleanUpPrefix(applicationId);
    // The example's defaults but the names: exactly_once, the record cache on, 4 partitions.
    service = await startWordCount(
      {
        brokers: testBrokers(),
        applicationId,
        input,
        output,
        guarantee: 'exactly_once',
        stateDir: mkdtempSync(join(tmpdir(), 'kstreams-verify-cached-')),
        port: 0,
        host: '127.0.0.1',
        partitions: 4,
        logLevel: 'warn',
      },
      createLogger('warn'),
    );
    const lines: string[] = [];
    for await (const line of readLines(BOOK_PATH)) {
      if (lines.length === 3_000) break;
      lines.push(line);
    }
    for (const word of lines.flatMap(wordsOf)) truth.set(word, (truth.get(word) ?? 0) + 1);
    await produce(
      input,
      lines.map((value) => ({ value })),
      testKafka('verify-cached-feeder'),
    );
    const out = await readTopic(
      output,
      (rs) => {
        const last = lastCounts(rs);
        return [...truth].every(([w, n]) => last.get(w) === n);
      },
      { timeoutMs: 120_000 },
    );
    expect(out.length).toBeLessThan(lines.flatMap(wordsOf).length);
    await service.close();
    service = undefined;
    expectedFile = join(mkdtempSync(join(tmpdir(), 'kstreams-verify-cached-')), 'expected.json');
    writeFileSync(expectedFile, JSON.stringify(Object.fromEntries(truth)));
  });
  afterAll(async () => {
    await service?.close();
  });

  it('the strict sequence check sees the cache’s skipped values as gaps, and says what to use', async () => {
    const { code, report, text } = await verify([output, '--expect-sequences']);
    expect(code).toBe(1);
    expect(report.counts).toMatchObject({ duplicate: 0, gap: expect.any(Number) });
    expect(report.counts.gap).toBeGreaterThan(0);
    expect(text).toContain('Check such output with --expect-increasing');
  });

  it('passes with --expect-increasing --against, and with --against alone (chosen from the counts)', async () => {
    for (const args of [
      [output, '--expect-increasing', '--against', expectedFile],
      [output, '--against', expectedFile],
      [output, '--expect-increasing'],
    ]) {
      const { code, report, text } = await verify(args);
      expect({ args, code, mode: report.mode, ok: report.ok }).toEqual({
        args,
        code: 0,
        mode: 'increasing',
        ok: true,
      });
      expect(text).toContain('checked: per key strictly increasing (record cache output)');
    }
  });

  it('names a duplicated last record and an older count written again as duplicates, not losses', async () => {
    const [word, count] = [...truth].find(([, n]) => n >= 5)!;
    const [other, otherCount] = [...truth].find(([w, n]) => n >= 5 && w !== word)!;
    // The output's partitioning as the app's: the same partition as the key's counts.
    const producer = testKafka('verify-cached-inject').producer();
    await producer.connect();
    const partitionOf = async (key: string) => {
      const rs = await readTopic(output, (r) => r.some((x) => x.key === key), { timeoutMs: 30_000 });
      return rs.find((x) => x.key === key)!.partition;
    };
    await producer.send({
      topic: output,
      messages: [
        { key: word, value: long(count), partition: await partitionOf(word) },
        { key: other, value: long(otherCount - 1), partition: await partitionOf(other) },
      ],
    });
    await producer.disconnect();
    for (const args of [
      [output, '--expect-increasing', '--against', expectedFile],
      [output, '--against', expectedFile],
    ]) {
      const { code, report } = await verify(args);
      expect(code).toBe(1);
      expect(report.counts).toMatchObject({ duplicate: 2, loss: 0, excess: 0, gap: 0 });
      expect(report.examples.duplicate.map((f) => [f.key, f.detail]).sort()).toEqual(
        [
          [word, `${count} again`],
          [other, `${otherCount - 1} after ${otherCount} (an older count written again)`],
        ].sort(),
      );
    }
  });
});

// kstreams lag, reset and reset --dry-run on the real broker, around one word count app:
// lag while it runs (numbers and owner), reset refused while it runs (naming the member), a dry
// run that changes nothing, then a reset after which a rerun from scratch counts the same.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { KafkaStreams } from '@kstreams/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testBrokers, testKafka, topicsForThisFile, uniqueName } from '../../../scripts/test/kafka.ts';
import {
  lastCounts,
  produce,
  readTopic,
  tempStateDir,
  waitFor,
} from '../../core/test/runtime/kafka-helpers.ts';
import { countWords, makeLines } from '../../core/test/runtime/text-fixtures.ts';
import { runCli } from '../src/index.ts';
import type { LagRow } from '../src/ops/lag.ts';
import { wordCount } from './fixtures/word-count-module.ts';

const topics = topicsForThisFile();
const brokers = testBrokers().join(',');
// kafkajs' admin keeps refreshing the metadata of every topic it has asked about, deleted ones
// included, so the checks after the reset use a fresh admin.
let admin = testKafka('ops-int').admin();

async function cli(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli([...args, '--brokers', brokers], {
    out: (s) => out.push(s),
    err: (s) => err.push(s),
  });
  return { code, out: out.join(''), err: err.join('') };
}

describe('kstreams lag and reset', () => {
  const applicationId = uniqueName('ops-int');
  const lines = makeLines(300, 6);
  const expected = countWords(lines);
  const stateDir = tempStateDir();
  let input: string;
  let app: KafkaStreams | undefined;
  const internal = [`${applicationId}-counts-repartition`, `${applicationId}-counts-changelog`];
  // `input` is only known once beforeAll has made the topic.
  const resetArgs = () => [
    'reset',
    '--application-id',
    applicationId,
    '--input-topics',
    input,
    '--local-state',
    stateDir,
  ];

  const start = (output: string) => {
    app = new KafkaStreams(wordCount(input, output), {
      applicationId,
      brokers: testBrokers(),
      stateDir,
      logger: 'error',
      processingGuarantee: 'exactly_once',
    });
    return app.start();
  };
  const groupOffsets = async () =>
    JSON.stringify(await admin.fetchOffsets({ groupId: applicationId, topics: [input, internal[0] ?? ''] }));

  beforeAll(async () => {
    topics.cleanUpPrefix(applicationId);
    await admin.connect();
    input = await topics.create('ops-int-lines', 2);
    await produce(
      input,
      lines.map((l, i) => ({ key: String(i), value: l, partition: i % 2 })),
    );
  });
  afterAll(async () => {
    await app?.close();
    await admin.disconnect();
  });

  it('runs the app and shows its lag and owners; reset refuses while it runs', async () => {
    const output = await topics.create('ops-int-out-1', 2);
    await start(output);
    const out = await readTopic(output, (r) => mapEq(lastCounts(r), expected), { settleMs: 500 });
    expect(lastCounts(out)).toEqual(expected);
    let rows: LagRow[] = [];
    await waitFor(
      async () => {
        rows = JSON.parse((await cli(['lag', '--application-id', applicationId, '--json'])).out) as LagRow[];
        return rows.filter((r) => r.topic === input).every((r) => r.committed === r.end && r.owner !== null);
      },
      30_000,
      'the input committed to its end',
    );
    const inputRows = rows.filter((r) => r.topic === input);
    expect(inputRows.map((r) => [r.partition, r.end, r.lag])).toEqual([
      [0, 150, 0],
      [1, 150, 0],
    ]);
    // The repartition topic is written transactionally: its end counts the commit markers too.
    const repartition = rows.filter((r) => r.topic === internal[0]);
    expect(repartition.length).toBe(2);
    for (const r of repartition) expect(r.end).toBeGreaterThan(0);
    const text = await cli(['lag', '--application-id', applicationId]);
    expect(text.out.split('\n')[0]).toMatch(/^TOPIC\s+PARTITION\s+COMMITTED\s+END\s+LAG\s+OWNER$/);
    const owner = inputRows[0]?.owner ?? '';
    expect(text.out).toContain(owner);

    const refused = await cli(['reset', '--application-id', applicationId, '--input-topics', input]);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('has active members');
    expect(refused.err).toContain(owner);
    await app?.close();
    app = undefined;
    await waitFor(async () => (await admin.describeGroups([applicationId])).groups[0]?.members.length === 0);
  });

  it('reset --dry-run prints every action and changes nothing', async () => {
    const before = { offsets: await groupOffsets(), topics: (await admin.listTopics()).sort() };
    const r = await cli([...resetArgs(), '--dry-run']);
    expect(r.code).toBe(0);
    expect(r.out).toContain(`(dry run) reset ${applicationId} on ${input}: p0 150 → 0, p1 150 → 0`);
    for (const t of internal) expect(r.out).toContain(`(dry run) delete internal topic ${t}`);
    expect(r.out).toContain(`(dry run) delete local state ${join(stateDir, applicationId)}`);
    expect(r.out).toContain('dry run: nothing changed');
    expect(await groupOffsets()).toBe(before.offsets);
    expect((await admin.listTopics()).sort()).toEqual(before.topics);
    expect(existsSync(join(stateDir, applicationId))).toBe(true);
  });

  it('reset then rerun from scratch counts the same as the first run', async () => {
    const r = await cli(resetArgs());
    expect(r.code).toBe(0);
    expect(r.out).toContain('reset done');
    await admin.disconnect();
    admin = testKafka('ops-int-after').admin();
    await admin.connect();
    const left = await admin.listTopics();
    for (const t of internal) expect(left).not.toContain(t);
    expect(existsSync(join(stateDir, applicationId))).toBe(false);
    const [committed] = await admin.fetchOffsets({ groupId: applicationId, topics: [input] });
    expect(committed?.partitions.map((p) => p.offset).sort()).toEqual(['0', '0']);

    // Same internal names, a fresh output topic: a left-over changelog or state would double counts.
    const output = await topics.create('ops-int-out-2', 2);
    await start(output);
    const out = await readTopic(output, (rs) => mapEq(lastCounts(rs), expected), { settleMs: 1_000 });
    expect(lastCounts(out)).toEqual(expected);
    const now = await admin.listTopics();
    for (const t of internal) expect(now).toContain(t);
  });
});

function mapEq(a: Map<string, number>, b: Map<string, number>): boolean {
  return a.size === b.size && [...b].every(([k, v]) => a.get(k) === v);
}

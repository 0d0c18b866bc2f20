// kstreams lag on the real broker for the groups it once got wrong: a group that does not exist
// (it printed a bare header and exited 0) and a group whose member never committed (its lag is
// from the log start, marked so).
import { afterAll, describe, expect, it } from 'vitest';
import { testBrokers, testKafka, topicsForThisFile, uniqueName } from '../../../scripts/test/kafka.ts';
import { produce, waitFor } from '../../core/test/runtime/kafka-helpers.ts';
import { runCli } from '../src/index.ts';
import type { LagRow } from '../src/ops/lag.ts';

const topics = topicsForThisFile();
const brokers = testBrokers().join(',');

async function cli(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli([...args, '--brokers', brokers], {
    out: (s) => out.push(s),
    err: (s) => err.push(s),
  });
  return { code, out: out.join(''), err: err.join('') };
}

describe('kstreams lag', () => {
  const consumers: Array<{ disconnect(): Promise<void> }> = [];
  afterAll(async () => {
    for (const c of consumers) await c.disconnect();
  });

  it('exits non-zero naming an unknown group', async () => {
    const group = uniqueName('lag-unknown');
    const r = await cli(['lag', '--application-id', group]);
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.err).toContain(`no consumer group "${group}" on the cluster: check --application-id`);
  });

  it('shows a group that never committed with its lag from the log start, marked so', async () => {
    const input = await topics.create('lag-nocommit', 2);
    await produce(
      input,
      Array.from({ length: 10 }, (_, i) => ({ key: String(i), value: 'v', partition: i % 2 })),
    );
    const group = uniqueName('lag-nocommit-app');
    topics.cleanUpPrefix(group);
    const consumer = testKafka().consumer({ groupId: group });
    consumers.push(consumer);
    await consumer.connect();
    await consumer.subscribe({ topics: [input], fromBeginning: true });
    await consumer.run({ autoCommit: false, eachMessage: async () => {} });
    let rows: LagRow[] = [];
    await waitFor(
      async () => {
        const r = await cli(['lag', '--application-id', group, '--json']);
        rows = r.code === 0 ? (JSON.parse(r.out) as LagRow[]) : [];
        return rows.length === 2 && rows.every((row) => row.owner !== null);
      },
      30_000,
      'the member to own both partitions',
    );
    expect(rows.map((r) => [r.partition, r.committed, r.end, r.lag, r.lagFrom])).toEqual([
      [0, null, 5, 5, 'logStart'],
      [1, null, 5, 5, 'logStart'],
    ]);
    const text = await cli(['lag', '--application-id', group]);
    expect(text.code).toBe(0);
    expect(text.out.split('\n')[1]).toMatch(
      new RegExp(`^${input}\\s+0\\s+none\\s+5\\s+5 \\(from log start\\)\\s+\\S+`),
    );
  });
});

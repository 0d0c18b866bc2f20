import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { groupMessagesPerPartition } from '../../src/kafka/producer-grouping.ts';

/** kafkajs 2.2.4's own grouping (the quadratic one), as the reference. */
function reference({
  topic,
  partitionMetadata,
  messages,
  partitioner,
}: Parameters<typeof groupMessagesPerPartition>[0]) {
  if (partitionMetadata.length === 0) return {};
  return messages.reduce<Record<number, unknown[]>>((result, message) => {
    const partition = partitioner({ topic, partitionMetadata, message });
    const current = result[partition] || [];
    return Object.assign(result, { [partition]: [...current, message] });
  }, {});
}

describe('linear grouping of a send per partition', () => {
  it('gives what kafkajs gives: the same partitions, messages in their order', () => {
    const partitionMetadata = [0, 1, 2, 3, 4].map((partitionId) => ({ partitionId }));
    const messages = Array.from({ length: 2000 }, (_, i) => ({
      key: `k${(i * 7919) % 613}`,
      value: String(i),
    }));
    const partitioner = ({ message }: { message: unknown }) =>
      Number((message as { key: string }).key.slice(1)) % partitionMetadata.length;
    const args = { topic: 't', partitionMetadata, messages, partitioner };
    const ours = groupMessagesPerPartition(args);
    expect(ours).toEqual(reference(args));
    expect(Object.keys(ours)).toEqual(['0', '1', '2', '3', '4']);
    expect(groupMessagesPerPartition({ ...args, partitionMetadata: [] })).toEqual({});
  });

  it('is what kafkajs uses once @kstreams/core is loaded first', () => {
    const core = fileURLToPath(new URL('../../src/index.ts', import.meta.url));
    const grouping = fileURLToPath(new URL('../../src/kafka/producer-grouping.ts', import.meta.url));
    const script = `
      import { createRequire } from 'node:module';
      await import(${JSON.stringify(core)});
      const { groupMessagesPerPartition, linearGroupingInstalled } = await import(${JSON.stringify(grouping)});
      const require = createRequire(${JSON.stringify(core)});
      const used = require('kafkajs/src/producer/groupMessagesPerPartition.js');
      console.log(JSON.stringify({ installed: linearGroupingInstalled(), same: used === groupMessagesPerPartition }));
    `;
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
    });
    expect(JSON.parse(out.trim().split('\n').at(-1)!)).toEqual({ installed: true, same: true });
  });
});

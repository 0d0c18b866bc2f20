// Loaded from source (not bundled), core reaches kafkajs' files: every patch is installed, and
// the capabilities say so (a bundled build is tested by scripts/test/bundle.ts' fixture).
import { describe, expect, it } from 'vitest';
import { kafkajsCapabilities } from '../../src/kafka/kafkajs-patches.ts';

describe('kafkajsCapabilities', () => {
  it('reports every patch installed when kafkajs is an external module', () => {
    expect(kafkajsCapabilities()).toEqual({
      fetchDecoding: true,
      encodedProduce: true,
      groupGeneration: true,
      stableOffsetFetch: true,
      txnOffsetCommitV3: true,
      linearGrouping: true,
      fetchLag: true,
      readCommitted: true,
    });
  });

  it("installs the replacements before kafkajs' producer loads its grouping", async () => {
    const { createRequire } = await import('node:module');
    const require = createRequire(import.meta.url);
    const { groupMessagesPerPartition } = await import('../../src/kafka/producer-grouping.ts');
    const loaded = require(
      require.resolve('kafkajs/src/producer/groupMessagesPerPartition.js', {
        paths: [new URL('../../src/kafka/', import.meta.url).pathname],
      }),
    );
    expect(loaded).toBe(groupMessagesPerPartition);
  });
});

import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundleEntry } from '../../../../scripts/test/bundle.ts';

// Crash tests and the benchmark run their apps bundled with plain node: they must run the kafkajs
// that users of @kstreams/core run, with core's replacements in it, not kafkajs as it comes.
describe('a bundled app', () => {
  it("loads kafkajs after core's replacements are installed", async () => {
    const script = await bundleEntry(join(import.meta.dirname, 'fixtures', 'kafkajs-patches.ts'));
    const out = JSON.parse(execFileSync(process.execPath, [script], { encoding: 'utf8' }).trim());
    expect(out).toEqual({
      core: 'function',
      capabilities: {
        fetchDecoding: true,
        encodedProduce: true,
        groupGeneration: true,
        stableOffsetFetch: true,
        txnOffsetCommitV3: true,
        linearGrouping: true,
        fetchLag: true,
        readCommitted: true,
      },
    });
  });
});

import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundleEntry } from '../../../../scripts/test/bundle.ts';
import { heapGrowthSetByNode } from '../../src/runtime/heap-growth.ts';

interface ChurnResult {
  applied: boolean;
  peakHeapMb: number;
}

async function churn(env: Record<string, string>, nodeArgs: string[] = []): Promise<ChurnResult> {
  const script = await bundleEntry(join(import.meta.dirname, 'fixtures', 'heap-churn-app.ts'));
  const child = spawn(process.execPath, [...nodeArgs, script], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const code = await new Promise((resolve) => child.once('exit', resolve));
  expect(code).toBe(0);
  return JSON.parse(out) as ChurnResult;
}

describe('heapGrowingPercent', () => {
  it('bounds the heap a steadily promoting process keeps (V8 alone lets it grow to ~4x the live data)', async () => {
    const ownChoice = await churn({ HEAP_GROWING_PERCENT: '0' });
    const bounded = await churn({ HEAP_GROWING_PERCENT: '30' });
    expect(ownChoice.applied).toBe(false);
    expect(bounded.applied).toBe(true);
    // ~40 MB live: V8's own factor peaks near 4x of it, 1.3x stays well under half of that.
    expect(
      bounded.peakHeapMb,
      `steady peak ${bounded.peakHeapMb} MB at 30%, ${ownChoice.peakHeapMb} MB with V8's own factor`,
    ).toBeLessThan(ownChoice.peakHeapMb * 0.7);
  }, 90_000);

  it("leaves node's own --heap-growing-percent in place", async () => {
    const result = await churn({ HEAP_GROWING_PERCENT: '30', CHURN_RECORDS: '10000' }, [
      '--heap-growing-percent=300',
    ]);
    expect(result.applied).toBe(false);
  }, 30_000);

  it('recognises the flag in both spellings', () => {
    expect(heapGrowthSetByNode(['--heap-growing-percent=20'])).toBe(true);
    expect(heapGrowthSetByNode(['--max-old-space-size=512', '--heap_growing_percent', '20'])).toBe(true);
    expect(heapGrowthSetByNode(['--max-old-space-size=512', '--trace-gc'])).toBe(false);
  });
});

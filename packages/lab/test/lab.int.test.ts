// Each cell's expectation on the real broker, with real faults (the fault proxy, SIGKILLed child
// processes), on a smaller workload than `npm run lab`. One lab context (proxy, topics) per file.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testBrokers } from '../../../scripts/test/kafka.ts';
import {
  type CellResult,
  type ConfigId,
  type LabContext,
  measureInFlight,
  openLab,
  prepareChildren,
  runLabCell,
  type ScenarioId,
} from '../src/index.ts';

let ctx: LabContext;
beforeAll(async () => {
  await prepareChildren();
  ctx = await openLab(testBrokers(), { keys: 5, perKey: 40 }, { sessionTimeoutMs: 3000 });
});
afterAll(async () => {
  await ctx.cleanUp();
  await ctx.close();
});

async function cell(config: ConfigId, scenario: ScenarioId): Promise<CellResult> {
  const c = await runLabCell(ctx, config, scenario);
  expect(c.status, c.reason).toBe('measured');
  expect(c.sent).toBe(200);
  return c;
}

describe('the producer settings (scenarios A-C)', () => {
  it('plain producer, A: the retried request is written twice', async () => {
    const c = await cell('plain', 'A');
    expect(c.fault).toMatch(/^[1-9]\d* answers lost/);
    expect(c.duplicates).toBeGreaterThan(0);
    expect(c.losses).toBe(0);
  });

  it('idempotent producer, A: the broker drops the retried duplicate', async () => {
    const c = await cell('idempotent', 'A');
    expect(c.fault).toMatch(/^[1-9]\d* answers lost/);
    expect(c).toMatchObject({ duplicates: 0, losses: 0, outOfOrder: 0, visible: 200 });
  });

  it('idempotent producer, B: a restarted producer is a new one, and the resent batch shows twice', async () => {
    const c = await cell('idempotent', 'B');
    expect(c.duplicates).toBeGreaterThan(0);
    expect(c.losses).toBe(0);
  });

  it('fire-and-forget, C: what was sent while the connection was down is gone, unnoticed', async () => {
    const c = await cell('fireAndForget', 'C');
    expect(c.losses).toBeGreaterThan(0);
    expect(c.visible).toBeLessThan(200);
  });

  it('fire-and-forget has no acknowledgement for A to lose', async () => {
    const c = await runLabCell(ctx, 'fireAndForget', 'A');
    expect(c).toMatchObject({ status: 'n/a' });
  });
});

describe('read-process-write (scenarios B, D1, D2)', () => {
  it('manual consumer commit, D1: the output of the uncommitted slice is written again', async () => {
    const c = await cell('manualCommit', 'D1');
    expect(c.duplicates).toBeGreaterThan(0);
    expect(c.losses).toBe(0);
  });

  it('transactional without sendOffsets, B: the killed transaction is aborted, nothing repeats', async () => {
    const c = await cell('transactional', 'B');
    expect(c).toMatchObject({ duplicates: 0, losses: 0, visible: 200 });
  });

  it('transactional without sendOffsets, D2: the commit went through unseen, the offsets did not', async () => {
    const c = await cell('transactional', 'D2');
    expect(c.fault).toContain('EndTxn answer lost');
    expect(c.duplicates).toBeGreaterThan(0);
    expect(c.losses).toBe(0);
  });

  it('kstreams at_least_once, D1: duplicates, and no loss', async () => {
    const c = await cell('streamsAtLeastOnce', 'D1');
    expect(c.duplicates).toBeGreaterThan(0);
    expect(c.losses).toBe(0);
  });
});

describe('kstreams exactly_once: 0 duplicates and 0 losses under every fault', () => {
  for (const scenario of ['A', 'B', 'C', 'D1', 'D2'] as ScenarioId[]) {
    it(scenario, async () => {
      const c = await cell('streamsExactlyOnce', scenario);
      expect(c.fault).not.toContain('incomplete');
      expect(c).toMatchObject({ duplicates: 0, losses: 0, outOfOrder: 0, visible: 200 });
    });
  }
});

describe('max.in.flight.requests.per.connection = 5', () => {
  it('is up to five requests in flight on the connection, not one', async () => {
    const f = await measureInFlight(ctx, 'plain', { sends: 60 });
    expect(f.maxInFlight).toBe(5);
    expect(f).toMatchObject({ duplicates: 0, losses: 0 });
  });
});

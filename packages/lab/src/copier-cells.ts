// The copier family (manual consumer commit; transactional without sendOffsets) under A-D2: a
// read-process-write child process copies the input to the output through the proxy.
import { ApiKey } from '../../../scripts/test/fault-proxy.ts';
import type { RunOutcome, ScenarioId } from './cell.ts';
import { LabChild } from './child.ts';
import type { CopierOptions, KillPoint } from './children/copier-child.ts';
import type { LabConfig } from './configs.ts';
import type { LabContext } from './context.ts';
import { complete, fillInput, withTimeout } from './pipeline.ts';
import { sequenceRecords, totalRecords } from './workload.ts';

const SLICE = 100;

const KILL_POINTS: Partial<Record<ScenarioId, KillPoint>> = {
  B: 'midBatch',
  D1: 'afterOutput',
  D2: 'beforeCommit',
};

export async function runCopierCell(
  ctx: LabContext,
  config: LabConfig,
  scenario: ScenarioId,
): Promise<RunOutcome> {
  const mode = config.id as CopierOptions['mode'];
  const name = `${mode}-${scenario}`;
  const input = await fillInput(ctx, `${name}-in`, sequenceRecords(ctx.workload));
  const output = await ctx.createTopic(`${name}-out`);
  const { proxy } = ctx;
  const base: CopierOptions = {
    brokers: ctx.brokers,
    proxyPort: proxy.port,
    mode,
    input,
    output,
    groupId: `${ctx.prefix}-${name}-group`,
    transactionalId: `${ctx.prefix}-${name}-tx`,
    sliceSize: SLICE,
    sessionTimeoutMs: ctx.sessionTimeoutMs,
    killPoint: KILL_POINTS[scenario] ?? 'none',
    // Half-way through the input (slices are cut per fetched batch, so a few more than records / SLICE).
    killAtSlice: Math.max(2, Math.floor(totalRecords(ctx.workload) / SLICE / 2)),
  };
  const group = { groupId: base.groupId, topics: [input] };
  const children: LabChild[] = [];
  const start = async (o: CopierOptions) => {
    const c = await new LabChild('copier', o).start();
    children.push(c);
    return c;
  };
  try {
    const first = await start(base);
    let fault = '';
    if (scenario === 'A' || scenario === 'C') {
      await first.waitFor(
        (e) => e.event === 'progress' && (e.slices as number) >= 3,
        60_000,
        'three slices copied',
      );
      const lost = proxy.lost;
      const dropped = proxy.dropped;
      if (scenario === 'A') proxy.loseNextResponses([ApiKey.Produce], 3);
      else proxy.dropConnections(1500);
      const note = await complete(ctx, output, group);
      fault = `${scenario === 'A' ? `${proxy.lost - lost} answers lost` : `${proxy.dropped - dropped} requests dropped`}${note}`;
    } else if (scenario === 'B' || scenario === 'D1') {
      const at = await first.waitFor((e) => e.event === 'hang', 60_000, `the kill point (${base.killPoint})`);
      await first.kill();
      await start({ ...base, killPoint: 'none' });
      const note = await complete(ctx, output, group);
      fault = `killed ${scenario === 'B' ? 'mid-slice' : 'after the output, before the commit'} at ${at.sent as number} records copied${note}`;
    } else {
      // D2: the answer to the commit is lost, and the process dies not knowing the outcome.
      const commitKey = mode === 'transactional' ? ApiKey.EndTxn : ApiKey.OffsetCommit;
      const killed = new Promise<void>((resolve) => {
        proxy.onLost = (apiKey) => {
          if (apiKey === commitKey) void first.kill().then(resolve);
        };
      });
      await first.waitFor((e) => e.event === 'beforeCommit', 60_000, 'the commit of the kill slice');
      proxy.loseNextResponses([commitKey], 1);
      await withTimeout(killed, 20_000, 'the commit answer to be lost');
      await start({ ...base, killPoint: 'none' });
      const note = await complete(ctx, output, group);
      fault = `${mode === 'transactional' ? 'EndTxn' : 'OffsetCommit'} answer lost, then SIGKILL${note}`;
    }
    return { output, fault };
  } finally {
    await Promise.all(children.map((c) => c.kill()));
  }
}

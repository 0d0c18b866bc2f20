// The streams family (kstreams' word count under at_least_once and exactly_once) under A-D2: the
// app runs as a child process, every connection through the proxy.
import { ApiKey } from '../../../scripts/test/fault-proxy.ts';
import type { RunOutcome, ScenarioId } from './cell.ts';
import { LabChild } from './child.ts';
import type { StreamsOptions } from './children/streams-child.ts';
import type { LabConfig } from './configs.ts';
import type { LabContext } from './context.ts';
import { complete, fillInput, tempDir, withTimeout } from './pipeline.ts';
import { totalRecords, wordRecords } from './workload.ts';

export async function runStreamsCell(
  ctx: LabContext,
  config: LabConfig,
  scenario: ScenarioId,
): Promise<RunOutcome> {
  const guarantee = config.id === 'streamsExactlyOnce' ? 'exactly_once' : 'at_least_once';
  const name = `${guarantee === 'exactly_once' ? 'eos' : 'alo'}-${scenario}`;
  const input = await fillInput(ctx, `${name}-in`, wordRecords(ctx.workload));
  const output = await ctx.createTopic(`${name}-out`);
  const { proxy } = ctx;
  const base: StreamsOptions = {
    brokers: ctx.brokers,
    proxyPort: proxy.port,
    applicationId: `${ctx.prefix}-${name}-app`,
    input,
    output,
    guarantee,
    commitIntervalMs: 500,
    stateDir: tempDir('kstreams-lab-'),
    sessionTimeoutMs: ctx.sessionTimeoutMs,
  };
  // Records processed counts the input and the repartition topic: 2 per word.
  const all = 2 * totalRecords(ctx.workload);
  const processed = (share: number) => (e: { event: string; processedRecords?: unknown }) =>
    e.event === 'metrics' && (e.processedRecords as number) >= share * all;
  const group = { groupId: base.applicationId, topics: [input, `${base.applicationId}-counts-repartition`] };
  const children: LabChild[] = [];
  const start = async (o: StreamsOptions) => {
    const c = await new LabChild('streams', o).start();
    children.push(c);
    return c;
  };
  try {
    let fault = '';
    if (scenario === 'A' || scenario === 'C') {
      const app = await start(base);
      await app.waitFor(processed(0.25), 90_000, 'a quarter of the input processed');
      const lost = proxy.lost;
      const dropped = proxy.dropped;
      if (scenario === 'A') proxy.loseNextResponses([ApiKey.Produce], 3);
      else proxy.dropConnections(1500);
      const note = await complete(ctx, output, group, 90_000);
      fault = `${scenario === 'A' ? `${proxy.lost - lost} answers lost` : `${proxy.dropped - dropped} requests dropped`}${note}`;
    } else if (scenario === 'B' || scenario === 'D1') {
      // D1: no commit in the first run (60 s interval), so the kill lands after output went out
      // and before its offsets were committed. B: the normal interval, killed half-way.
      const first = await start({ ...base, commitIntervalMs: scenario === 'D1' ? 60_000 : 500 });
      await first.waitFor(processed(0.5), 90_000, 'half the input processed');
      await first.kill();
      // What the app had reported last before the kill (every 200 ms).
      const at = first.last('metrics')!;
      await start(base);
      const note = await complete(ctx, output, group, 90_000);
      fault = `SIGKILL at ${at.processedRecords as number} of ${all} records processed (input and repartition), after ${at.commits as number} commits${note}`;
    } else {
      const commitKey = guarantee === 'exactly_once' ? ApiKey.EndTxn : ApiKey.OffsetCommit;
      const first = await start(base);
      await first.waitFor(processed(0.25), 90_000, 'a quarter of the input processed');
      const killed = new Promise<void>((resolve) => {
        proxy.onLost = (apiKey) => {
          if (apiKey === commitKey) void first.kill().then(resolve);
        };
      });
      proxy.loseNextResponses([commitKey], 1);
      await withTimeout(killed, 20_000, 'a commit answer to be lost');
      await start(base);
      const note = await complete(ctx, output, group, 90_000);
      fault = `${guarantee === 'exactly_once' ? 'EndTxn' : 'OffsetCommit'} answer lost, then SIGKILL${note}`;
    }
    return { output, fault };
  } finally {
    await Promise.all(children.map((c) => c.kill()));
  }
}

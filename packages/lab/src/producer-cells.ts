// The producer family under A, B and C: one application process sends the workload straight to
// the output topic through the proxy.
import { ApiKey } from '../../../scripts/test/fault-proxy.ts';
import type { RunOutcome, ScenarioId } from './cell.ts';
import { LabChild } from './child.ts';
import type { LabConfig, ProducerConfigId } from './configs.ts';
import type { LabContext } from './context.ts';
import { runSource } from './source.ts';
import { sequenceRecords, totalRecords } from './workload.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runProducerCell(
  ctx: LabContext,
  config: LabConfig,
  scenario: ScenarioId,
): Promise<RunOutcome> {
  const id = config.id as ProducerConfigId;
  const output = await ctx.createTopic(`${id}-${scenario}-out`);
  const records = sequenceRecords(ctx.workload);
  // At least 20 chunks, so the fault (armed after the third) lands mid-batch; at most 100 records each.
  const chunkSize = Math.max(1, Math.min(100, Math.floor(records.length / 20)));
  const { proxy } = ctx;
  if (scenario === 'A' || scenario === 'C') {
    const lost = proxy.lost;
    const dropped = proxy.dropped;
    const result = await runSource({
      kafka: ctx.kafka('proxy'),
      config: id,
      topic: output,
      records,
      chunkSize,
      // Paced, so that the fault window of C covers some chunks and not all that follow.
      onChunk: async (_sent, chunk) => {
        await sleep(30);
        if (chunk !== 2) return;
        // What was written so far has reached the broker (acks=0 resolves on the write).
        await sleep(300);
        if (scenario === 'A') proxy.loseNextResponses([ApiKey.Produce], 3);
        else proxy.dropConnections(1500);
      },
    });
    const fault =
      scenario === 'A' ? `${proxy.lost - lost} answers lost` : `${proxy.dropped - dropped} requests dropped`;
    return { output, fault: `${fault}; ${result.failedSends} sends failed` };
  }
  // B: the first process is killed once half the batch is acknowledged; a second sends it all.
  const options = {
    brokers: ctx.brokers,
    proxyPort: proxy.port,
    config: id,
    topic: output,
    workload: ctx.workload,
    chunkSize,
  };
  const first = await new LabChild('producer', options).start();
  try {
    const half = totalRecords(ctx.workload) / 2;
    const at = await first.waitFor(
      (e) => e.event === 'acked' && (e.sent as number) >= half,
      60_000,
      'half the batch acked',
    );
    await first.kill();
    const second = await new LabChild('producer', options).start();
    await second.waitFor((e) => e.event === 'done', 60_000, 'the second process to send the batch');
    await second.exit(10_000);
    return { output, fault: `killed after ${at.sent as number} records acked` };
  } finally {
    await first.kill();
  }
}

// One cell of the matrix: a configuration under a scenario, measured by verify on the output.
import { verifyTopic } from '@kstreams/cli';
import type { ConfigId, LabConfig } from './configs.ts';
import type { LabContext } from './context.ts';
import { expectedFinal, totalRecords } from './workload.ts';

export type ScenarioId = 'A' | 'B' | 'C' | 'D1' | 'D2';

export interface Scenario {
  id: ScenarioId;
  title: string;
  fault: string;
}

export const SCENARIOS: Scenario[] = [
  {
    id: 'A',
    title: 'lost acknowledgement',
    fault: 'the proxy lets 3 Produce requests through and cuts the connection instead of answering',
  },
  {
    id: 'B',
    title: 'producer dies mid-batch',
    fault: 'SIGKILL after part of the batch was acknowledged; a new process sends the batch again',
  },
  {
    id: 'C',
    title: 'fire and forget',
    fault: 'the proxy drops every connection for 1.5 s (requests vanish unanswered)',
  },
  {
    id: 'D1',
    title: 'consumer dies before committing',
    fault: 'SIGKILL after the output, before the offset commit; restart',
  },
  {
    id: 'D2',
    title: 'consumer dies during the commit',
    fault: 'the proxy loses the answer to the offset commit (EndTxn for transactions); SIGKILL; restart',
  },
];

export interface CellResult {
  config: ConfigId;
  scenario: ScenarioId;
  status: 'measured' | 'n/a' | 'error';
  /** Why n/a, or the error. */
  reason?: string;
  /** Distinct records the workload put into the pipeline. */
  sent: number;
  /** Records a read_committed reader sees in the output. */
  visible: number;
  /** Repeated values, plus counts above the expected final value (a word count's over-count). */
  duplicates: number;
  /** Values never seen, below a key's highest or above it up to the expected final value. */
  losses: number;
  outOfOrder: number;
  /** What the fault did, as the proxy and the children saw it. */
  fault: string;
  ms: number;
}

/** Evidence of the fault, filled in by the family's run. */
export interface RunOutcome {
  output: string;
  fault: string;
}

export function notApplicable(config: LabConfig, scenario: ScenarioId): string | undefined {
  if (config.family === 'producer' && (scenario === 'D1' || scenario === 'D2'))
    return 'no consumer: nothing commits offsets';
  if (config.id === 'fireAndForget' && scenario === 'A')
    return 'acks=0: the broker sends no acknowledgement to lose';
  return undefined;
}

export async function measure(
  ctx: LabContext,
  output: string,
): Promise<Omit<CellResult, 'config' | 'scenario' | 'status' | 'fault' | 'ms'>> {
  const report = await verifyTopic({
    brokers: ctx.brokers,
    topic: output,
    expectSequences: true,
    against: expectedFinal(ctx.workload),
    idleMs: 1500,
  });
  const c = report.counts;
  return {
    sent: totalRecords(ctx.workload),
    visible: report.records,
    duplicates: c.duplicate + c.excess,
    losses: c.gap + c.loss,
    outOfOrder: c.outOfOrder,
  };
}

export type FamilyRunner = (ctx: LabContext, config: LabConfig, scenario: ScenarioId) => Promise<RunOutcome>;

export async function runCell(
  ctx: LabContext,
  config: LabConfig,
  scenario: ScenarioId,
  run: FamilyRunner,
): Promise<CellResult> {
  const base = {
    config: config.id,
    scenario,
    sent: totalRecords(ctx.workload),
    visible: 0,
    duplicates: 0,
    losses: 0,
    outOfOrder: 0,
    fault: '',
  };
  const na = notApplicable(config, scenario);
  if (na) return { ...base, status: 'n/a', reason: na, ms: 0 };
  const started = Date.now();
  ctx.proxy.onLost = undefined;
  try {
    const outcome = await run(ctx, config, scenario);
    return {
      ...base,
      ...(await measure(ctx, outcome.output)),
      status: 'measured',
      fault: outcome.fault,
      ms: Date.now() - started,
    };
  } catch (error) {
    return {
      ...base,
      status: 'error',
      reason: (error as Error).message.slice(0, 300),
      ms: Date.now() - started,
    };
  } finally {
    ctx.proxy.onLost = undefined;
    ctx.proxy.loseNextResponses([], 0);
  }
}

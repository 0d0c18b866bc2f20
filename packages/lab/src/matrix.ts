// The whole lab: every configuration under every scenario, and the in-flight measurements.
import { type CellResult, type FamilyRunner, runCell, SCENARIOS, type ScenarioId } from './cell.ts';
import { CONFIGS, type ConfigId, type Family } from './configs.ts';
import type { LabContext } from './context.ts';
import { runCopierCell } from './copier-cells.ts';
import { type InFlightResult, measureInFlight } from './inflight.ts';
import { runProducerCell } from './producer-cells.ts';
import { runStreamsCell } from './streams-cells.ts';

export const RUNNERS: Record<Family, FamilyRunner> = {
  producer: runProducerCell,
  copier: runCopierCell,
  streams: runStreamsCell,
};

export interface LabResults {
  workload: LabContext['workload'];
  cells: CellResult[];
  inFlight: InFlightResult[];
  startedAt: string;
  ms: number;
}

/** Runs one cell by ids: what the integration tests call. */
export function runLabCell(ctx: LabContext, config: ConfigId, scenario: ScenarioId): Promise<CellResult> {
  const c = CONFIGS.find((x) => x.id === config)!;
  return runCell(ctx, c, scenario, RUNNERS[c.family]);
}

export async function runLab(
  ctx: LabContext,
  { onCell }: { onCell?: (cell: CellResult) => void } = {},
): Promise<LabResults> {
  const started = Date.now();
  const cells: CellResult[] = [];
  for (const config of CONFIGS) {
    for (const scenario of SCENARIOS) {
      const cell = await runCell(ctx, config, scenario.id, RUNNERS[config.family]);
      cells.push(cell);
      onCell?.(cell);
    }
  }
  const inFlight: InFlightResult[] = [];
  for (const config of ['plain', 'idempotent'] as const)
    for (const loseAnswers of [0, 2]) inFlight.push(await measureInFlight(ctx, config, { loseAnswers }));
  return {
    workload: ctx.workload,
    cells,
    inFlight,
    startedAt: new Date(started).toISOString(),
    ms: Date.now() - started,
  };
}

/** A cell is bad when a read_committed reader sees a duplicate, a loss or a reordering. */
export const isBad = (c: Pick<CellResult, 'duplicates' | 'losses' | 'outOfOrder'>) =>
  c.duplicates > 0 || c.losses > 0 || c.outOfOrder > 0;

// BENCH_ROUNDS: every app runs that many times, the apps interleaved round after round, so that a
// spell of load from elsewhere on the shared machine falls on all of them alike. Each app is then
// reported by its median round (all of that round's figures, so they stay consistent with each
// other), and each comparison's throughput ratio is shown per round next to its median.
import type { AppKind } from './protocol.ts';
import { summarise } from './report.ts';
import type { AppResult } from './run-app.ts';
import { COMPARISONS } from './variants.ts';

export interface RoundResult {
  result: AppResult;
  /** From 0. */
  round: number;
}

/** The order in which the apps run: all of them in round 0, then all in round 1, and so on. */
export function roundsOf(apps: readonly AppKind[], rounds: number): Array<[number, AppKind]> {
  const order: Array<[number, AppKind]> = [];
  for (let round = 0; round < rounds; round++) for (const kind of apps) order.push([round, kind]);
  return order;
}

function processMs(r: AppResult): number | undefined {
  return r.doneAt !== undefined && r.runningAt !== undefined && r.error === undefined
    ? r.doneAt - r.runningAt
    : undefined;
}

/**
 * One result per app, in the order the apps first ran: the round with the median processing time
 * among the rounds that finished (the slower of the two middle ones for an even count); an app
 * that never finished keeps its first round, so that its failure is what is reported.
 */
export function medianRounds(all: readonly RoundResult[]): AppResult[] {
  const byKind = new Map<AppKind, AppResult[]>();
  for (const { result } of all) {
    const list = byKind.get(result.kind) ?? [];
    list.push(result);
    byKind.set(result.kind, list);
  }
  return [...byKind.values()].map((list) => {
    const finished = list
      .filter((r) => processMs(r) !== undefined && r.verification?.ok !== false)
      .sort((a, b) => processMs(a)! - processMs(b)!);
    return finished.length === 0 ? list[0]! : finished[Math.floor(finished.length / 2)]!;
  });
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

export interface RoundRatio {
  label: string;
  /** Words per second of the comparison's left app / its right one, per round where both finished. */
  perRound: number[];
  median: number;
  target?: number;
}

/**
 * Each comparison's words-per-second ratio in every round, as the report computes it from that
 * round's results alone (so a round where a side failed or wrote wrong output gives no ratio).
 */
export function roundRatios(
  all: readonly RoundResult[],
  rounds: number,
  lineCount: number,
  totalWords: number,
): RoundRatio[] {
  const perRound = new Map<string, number[]>();
  for (let round = 0; round < rounds; round++) {
    const results = all.filter((r) => r.round === round).map((r) => r.result);
    for (const ratio of summarise(results, lineCount, totalWords, new Map()).ratios) {
      if (ratio.figures === undefined) continue;
      const list = perRound.get(ratio.label) ?? [];
      list.push(ratio.figures.throughput);
      perRound.set(ratio.label, list);
    }
  }
  return COMPARISONS.flatMap((c) => {
    const values = perRound.get(c.label);
    if (values === undefined) return [];
    return [
      {
        label: c.label,
        perRound: values,
        median: median(values),
        ...(c.target === undefined ? {} : { target: c.target }),
      },
    ];
  });
}

export function formatRoundRatios(ratios: readonly RoundRatio[], rounds: number): string {
  return [
    `Throughput ratios per round (${rounds} rounds, apps interleaved):`,
    ...ratios.map(
      (r) =>
        `  ${r.label}: ${r.perRound.map((x) => x.toFixed(2)).join(', ')}; median ${r.median.toFixed(2)}` +
        (r.target === undefined ? '' : ` (target >= ${r.target})`),
    ),
  ].join('\n');
}

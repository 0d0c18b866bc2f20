// The table and the ratios, from one run's results: summarised once, then printed here and
// written as markdown and SVG by results.ts.
import type { ExpectedCounts } from './corpus.ts';
import type { Latency } from './latency.ts';
import type { AppKind } from './protocol.ts';
import type { AppResult } from './run-app.ts';
import { COMPARISONS, guaranteeOf, isHandWritten } from './variants.ts';

export interface Row {
  kind: AppKind;
  guarantee: string;
  cache: string;
  ok: boolean;
  /** Skipped or failed: why; the figures are then absent. */
  note?: string;
  startupS?: number;
  processS?: number;
  linesPerS?: number;
  wordsPerS?: number;
  cpuS?: number;
  wordsPerCpuS?: number;
  rssMb?: number;
  records?: number;
  /** End-to-end latency at half the measured rate, ms (latency.ts); or why it is missing. */
  p50Ms?: number;
  p99Ms?: number;
  latencyNote?: string;
  check: string;
}

export interface Ratio {
  label: string;
  num: AppKind;
  den: AppKind;
  /** Computed, or why not. */
  figures?: { throughput: number; withStartup: number; perCpu: number; rss: number };
  missing?: string;
  target?: number;
}

export interface Summary {
  rows: Row[];
  ratios: Ratio[];
}

export const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

function row(r: AppResult, lineCount: number, totalWords: number): Row {
  const base = { kind: r.kind, guarantee: guaranteeOf(r.kind), cache: r.cache ?? '-' };
  if (r.skipped !== undefined) return { ...base, ok: false, note: `skipped: ${r.skipped}`, check: 'skipped' };
  if (r.doneAt === undefined) return { ...base, ok: false, note: `FAILED: ${r.error}`, check: 'FAILED' };
  const processS = (r.doneAt - r.runningAt!) / 1000;
  const cpuS = (r.cpuUs ?? 0) / 1e6;
  const v = r.verification;
  return {
    ...base,
    ok: r.error === undefined && v?.ok === true,
    note: r.error,
    startupS: (r.runningAt! - r.startedAt!) / 1000,
    processS,
    linesPerS: lineCount / processS,
    wordsPerS: totalWords / processS,
    cpuS,
    wordsPerCpuS: totalWords / cpuS,
    rssMb: r.maxRssKb === undefined ? undefined : r.maxRssKb / 1024,
    records: v?.records,
    check: v?.ok
      ? v.overCounted > 0
        ? `ok (${v.overCounted} words over-counted)`
        : 'ok'
      : `WRONG: ${v?.problems.join('; ') ?? r.error}`,
  };
}

export function summarise(
  results: AppResult[],
  lineCount: number,
  totalWords: number,
  latencies: Map<AppKind, Latency | { error: string }>,
): Summary {
  const rows = results.map((r) => {
    const out = row(r, lineCount, totalWords);
    const latency = latencies.get(r.kind);
    if (latency && 'error' in latency) out.latencyNote = latency.error;
    else if (latency) Object.assign(out, { p50Ms: latency.p50Ms, p99Ms: latency.p99Ms });
    return out;
  });
  const byKind = new Map(rows.map((r) => [r.kind, r]));
  const ratios: Ratio[] = [];
  for (const c of COMPARISONS) {
    const num = byKind.get(c.num);
    const den = byKind.get(c.den);
    if (num === undefined || den === undefined) continue;
    const ratio: Ratio = { label: c.label, num: num.kind, den: den.kind, target: c.target };
    if (!num.ok || !den.ok) {
      ratio.missing = 'not computed (a side was skipped, failed or wrong)';
    } else {
      ratio.figures = {
        throughput: den.processS! / num.processS!,
        withStartup: (den.processS! + den.startupS!) / (num.processS! + num.startupS!),
        perCpu: num.wordsPerCpuS! / den.wordsPerCpuS!,
        rss: num.rssMb! / den.rssMb!,
      };
    }
    ratios.push(ratio);
  }
  return { rows, ratios };
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

export const COLUMNS = [
  'app',
  'cache',
  'startup s',
  'process s',
  'lines/s',
  'words/s',
  'CPU s',
  'words/CPU-s',
  'peak RSS MB',
  'output recs',
  'p50 ms',
  'p99 ms',
  'check',
];

/** A row's cells under COLUMNS. */
export function cells(r: Row): string[] {
  const n = (v: number | undefined, digits = 0) => (v === undefined ? '-' : fmt(v, digits));
  if (r.processS === undefined) {
    return [r.kind, r.cache, ...Array(COLUMNS.length - 3).fill('-'), r.note!.slice(0, 120)];
  }
  return [
    r.kind,
    r.cache,
    n(r.startupS, 2),
    n(r.processS, 2),
    n(r.linesPerS),
    n(r.wordsPerS),
    n(r.cpuS, 1),
    n(r.wordsPerCpuS),
    n(r.rssMb),
    n(r.records),
    r.latencyNote ? 'failed' : n(r.p50Ms),
    r.latencyNote ? 'failed' : n(r.p99Ms),
    r.check,
  ];
}

/** A ratio as one line: throughput against its target, then the rest. */
export function ratioText(r: Ratio): string {
  if (!r.figures) return `${r.label} (${r.num} / ${r.den}): ${r.missing}`;
  const f = r.figures;
  const target =
    r.target === undefined ? '' : ` (target >= ${r.target}: ${f.throughput >= r.target ? 'met' : 'MISSED'})`;
  return (
    `${r.label} (${r.num} / ${r.den}): words/s ${f.throughput.toFixed(2)}${target}; ` +
    `words/CPU-s ${f.perCpu.toFixed(2)}; with startup ${f.withStartup.toFixed(2)}; peak RSS ${f.rss.toFixed(2)}`
  );
}

export function formatReport(opts: {
  summary: Summary;
  results: AppResult[];
  lineCount: number;
  totalWords: number;
  sampleWords: string[];
  expected: ExpectedCounts;
}): string {
  const { summary, results, lineCount, totalWords } = opts;
  const out = [
    `Word count: ${fmt(lineCount)} lines, ${fmt(totalWords)} words. Timed from "joined and running" to "done"`,
    '(startup excluded, shown separately); CPU s = the app process during that window. See',
    'bench/results/word-count.md for what "done" means per guarantee and cache. p50/p99: end-to-end',
    "latency of the output records of a second run at half the app's measured rate.",
    '',
    table(COLUMNS, summary.rows.map(cells)),
    '',
    ...summary.ratios.map(ratioText),
  ];
  const ran = results.filter((r) => r.verification !== undefined);
  const samples = opts.sampleWords.map((w) => {
    const actual = ran.map(
      (r) => `${r.kind} ${r.verification!.samples.find((x) => x.word === w)?.actual ?? '-'}`,
    );
    return `"${w}" ${opts.expected.counts.get(w)} (${actual.join(', ')})`;
  });
  out.push(`Sample final counts, expected (actual): ${samples.join('; ')}`);
  const sources = new Set(
    results.flatMap((r) => (isHandWritten(r.kind) || !r.topologySource ? [] : [r.topologySource])),
  );
  if (sources.size > 0) out.push(`Topologies from ${[...sources].join(' and ')}.`);
  return out.join('\n');
}

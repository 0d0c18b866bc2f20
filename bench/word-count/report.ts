// The table and the ratios, from one run's results.
import type { ExpectedCounts } from './corpus.ts';
import type { AppKind } from './protocol.ts';
import type { AppResult } from './run-app.ts';

const TARGETS: Array<{ num: AppKind; den: AppKind; target: number }> = [
  { num: 'kstreams-alo', den: 'kafkajs', target: 0.7 },
  { num: 'kstreams-eos', den: 'kstreams-alo', target: 0.6 },
  // What the metrics at info level cost (issue 15).
  { num: 'kstreams-alo', den: 'kstreams-alo-nometrics', target: 0.97 },
];

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

export function formatReport(opts: {
  results: AppResult[];
  lineCount: number;
  totalWords: number;
  sampleWords: string[];
  expected: ExpectedCounts;
}): string {
  const { results, lineCount, totalWords } = opts;
  const ok = (r: AppResult) => r.error === undefined && r.doneAt !== undefined && r.verification?.ok === true;
  const seconds = (r: AppResult) => (r.doneAt! - r.runningAt!) / 1000;
  const totalSeconds = (r: AppResult) => (r.doneAt! - r.startedAt!) / 1000;
  const rows = results.map((r) => {
    if (r.doneAt === undefined) return [r.kind, ...Array(9).fill('-'), `FAILED: ${r.error}`.slice(0, 60)];
    const s = seconds(r);
    const cpuS = (r.cpuUs ?? 0) / 1e6;
    return [
      r.kind,
      ((r.runningAt! - r.startedAt!) / 1000).toFixed(2),
      s.toFixed(2),
      fmt(lineCount / s),
      fmt(totalWords / s),
      cpuS.toFixed(1),
      fmt(totalWords / cpuS),
      r.maxRssKb === undefined ? '-' : fmt(r.maxRssKb / 1024),
      r.verification ? fmt(r.verification.records) : '-',
      r.verification?.ok
        ? r.verification.overCounted > 0
          ? `ok (${r.verification.overCounted} words over-counted)`
          : 'ok'
        : `WRONG: ${r.verification?.problems.join('; ') ?? r.error}`,
    ];
  });
  const out = [
    `Word count: ${fmt(lineCount)} lines, ${fmt(totalWords)} words. Timed from "joined and running" to "output`,
    'complete" (startup excluded, shown separately); CPU s = the app process during that window.',
    '',
    table(
      [
        'app',
        'startup s',
        'process s',
        'lines/s',
        'words/s',
        'CPU s',
        'words/CPU-s',
        'peak RSS MB',
        'output recs',
        'check',
      ],
      rows,
    ),
    '',
  ];
  const byKind = new Map(results.map((r) => [r.kind, r]));
  for (const { num, den, target } of TARGETS) {
    const a = byKind.get(num);
    const b = byKind.get(den);
    if (!a || !b) continue;
    if (!ok(a) || !ok(b)) {
      out.push(`${num} / ${den}: not computed (a run failed or its output was wrong)`);
      continue;
    }
    const ratio = seconds(b) / seconds(a);
    const withStartup = totalSeconds(b) / totalSeconds(a);
    const cpu = (b.cpuUs ?? 0) / (a.cpuUs ?? 1);
    out.push(
      `${num} / ${den} throughput: ${ratio.toFixed(2)} (target >= ${target}: ${ratio >= target ? 'met' : 'MISSED'}); ` +
        `with startup ${withStartup.toFixed(2)}; CPU efficiency ${cpu.toFixed(2)}`,
    );
  }
  const samples = opts.sampleWords.map((w) => {
    const actual = results.map((r) => {
      const s = r.verification?.samples.find((x) => x.word === w);
      return `${r.kind} ${s?.actual ?? '-'}`;
    });
    return `"${w}" ${opts.expected.counts.get(w)} (${actual.join(', ')})`;
  });
  out.push(`Sample final counts, expected (actual): ${samples.join('; ')}`);
  const topology = results.find((r) => r.kind !== 'kafkajs')?.topologySource;
  if (topology) out.push(`kstreams topology from ${topology}.`);
  return out.join('\n');
}

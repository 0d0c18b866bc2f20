// Writes one run's word-count figures to bench/results/: a markdown page (the table, the ratios
// and how they were measured) and the SVG chart it shows. docs/benchmarks.md links both, so the latest
// run that wrote them is what a reader sees.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chartSvg } from './chart.ts';
import { COLUMNS, cells, fmt, type Summary } from './report.ts';
import type { RoundRatio } from './rounds.ts';

export const RESULTS_DIR = fileURLToPath(new URL('../results/', import.meta.url));

export interface RunInfo {
  date: string;
  code: string;
  kafkaVersion: string;
  lineCount: number;
  totalWords: number;
  distinctWords: number;
  partitions: number;
  source: string;
  cpus: number;
  memoryGb: number;
  loadAverage: number[];
  latencySeconds: number;
  /** BENCH_ROUNDS: above 1, each row is its app's median round, and the ratios per round follow. */
  rounds: number;
  roundRatios: RoundRatio[];
}

/** With rounds: what the rows are, and each comparison's ratio in every round. */
function roundsSection(run: RunInfo): string[] {
  if (run.rounds <= 1) return [];
  const rows = run.roundRatios.map((r) => [
    r.label,
    r.perRound.map((x) => x.toFixed(2)).join(', '),
    r.median.toFixed(2),
    r.target === undefined ? '' : `≥ ${r.target}`,
  ]);
  return [
    `Every app ran ${run.rounds} times, the apps interleaved round after round (\`BENCH_ROUNDS\`): each row of the`,
    "first table is its app's median round, and the ratios above come from those rows. Each comparison's words/s",
    'ratio in every round:',
    '',
    ...mdTable(['comparison', 'words/s per round', 'median', 'target'], rows),
    '',
  ];
}

/** A markdown table with its columns padded, as biome formats them. */
export function mdTable(header: string[], rows: string[][]): string[] {
  const escaped = [header, ...rows].map((r) => r.map((c) => c.replace(/\|/g, '\\|')));
  const widths = header.map((_, i) => Math.max(3, ...escaped.map((r) => r[i]!.length)));
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(escaped[0]!), line(widths.map((w) => '-'.repeat(w))), ...escaped.slice(1).map(line)];
}

function markdown(summary: Summary, run: RunInfo): string {
  const header = ['app', 'guarantee', ...COLUMNS.slice(1)];
  const rows = summary.rows.map((r) => {
    const c = cells(r);
    return [c[0]!, r.guarantee, ...c.slice(1)];
  });
  const ratios = summary.ratios.map((r) => {
    const f = r.figures;
    const target =
      r.target === undefined
        ? ''
        : `≥ ${r.target}${f ? (f.throughput >= r.target ? ' (met)' : ' (missed)') : ''}`;
    const apps = `${r.num} / ${r.den}`;
    return f
      ? [r.label, apps, f.throughput.toFixed(2), f.perCpu.toFixed(2), f.rss.toFixed(2), target]
      : [r.label, apps, '-', '-', '-', `${target} ${r.missing}`.trim()];
  });
  return [
    '# Word count: kstreams, Java Kafka Streams and a hand-written kafkajs app',
    '',
    '<!-- Written by `npm run bench -- word-count` (bench/word-count/results.ts): the latest run. -->',
    '',
    `Run of ${run.date}, code ${run.code}, Kafka ${run.kafkaVersion} (broker and Java Kafka Streams). ` +
      `Input: ${fmt(run.lineCount)} lines, ${fmt(run.totalWords)} words, ${fmt(run.distinctWords)} distinct, ` +
      `${run.partitions} partitions, ${run.source}. Machine: ${run.cpus} CPUs, ${run.memoryGb} GB, load average ` +
      `${run.loadAverage.map((l) => l.toFixed(2)).join(' / ')} at the start (shared: compare the ratios, ` +
      'measured within this run, not the times).',
    '',
    '![word count: words/s, words per CPU-second, peak RSS](word-count.svg)',
    '',
    ...mdTable(header, rows),
    '',
    'Ratios (left app / right app; above 1 the left one is faster, uses less CPU per word, or, for RSS, more memory):',
    '',
    ...mdTable(['comparison', 'apps', 'words/s', 'words/CPU-s', 'peak RSS', 'target (words/s)'], ratios),
    '',
    ...roundsSection(run),
    '## How it is measured',
    '',
    '- One app at a time, each in its own process (Node for kafkajs and kstreams, a JVM with its',
    '  default settings for Java: its heap may grow to a quarter of the memory), one stream thread, on',
    '  the same pre-loaded input topic. The Java app',
    '  (`bench/word-count/java/WordCountBench.java`) runs the WordCountDemo topology with the same',
    '  topics, serdes and store name as the kstreams example; everything but the guarantee and the',
    "  cache size is Kafka Streams' default (commit interval 100 ms under exactly_once, 30 s under",
    "  at_least_once, as kstreams'). `cache`: the record cache (`statestore.cache.max.bytes`, kstreams'",
    '  `statestoreCacheMaxBytes`), `on` at the default 10 MB, `off` at 0.',
    '- Timed from the app\'s first RUNNING state to "done"; startup (connects, group join, internal',
    "  topics) is shown apart. CPU s: user + system time of the app's process in that window",
    "  (Node: `process.cpuUsage()`; Java: `/proc/self/stat`). Peak RSS: the process's high-water",
    "  mark at exit (`VmHWM`; Node's `maxRSS`).",
    "- Done: under exactly_once, when the group's committed offsets reach the end of the input and",
    '  repartition topics (the output is committed in the same transactions). Under at_least_once',
    "  without cache, when every word's last count in the output is its true count. Under",
    '  at_least_once with the cache on, the output waits in the cache until the next commit (up to',
    "  30 s), so done is when the app's own count of processed records (Kafka Streams' thread",
    "  `process-total`, kstreams' `processedRecords`) reaches lines + words; the cache is written",
    '  out when the app closes, before the check.',
    "- Checked after each app stopped: every word's last count in the output is its true count,",
    '  none is over-counted under exactly_once, and without cache one output record per word',
    '  (exactly_once) or at least one (at_least_once). With the cache fewer records are written.',
    `- p50 / p99 ms: end-to-end latency in a second run of each app (a fresh instance, empty input),`,
    `  ${run.latencySeconds} s of lines at half the rate the app reached above, each stamped when sent; a`,
    "  record's latency is when the benchmark's consumer received it (read_committed under",
    '  exactly_once) minus that stamp, which the count carries from its input line; the first 2 s are',
    "  left out. With the cache on, a count is written once per commit with its latest update's",
    "  stamp, so the updates it absorbed are not measured (as Kafka Streams' record-e2e-latency).",
    '',
  ].join('\n');
}

export function writeResults(summary: Summary, run: RunInfo): string[] {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const md = join(RESULTS_DIR, 'word-count.md');
  const svg = join(RESULTS_DIR, 'word-count.svg');
  writeFileSync(md, markdown(summary, run));
  writeFileSync(
    svg,
    chartSvg(
      summary.rows,
      `Word count, ${fmt(run.lineCount)} lines, ${fmt(run.totalWords)} words, one thread per app (${run.date})`,
    ),
  );
  return [md, svg];
}

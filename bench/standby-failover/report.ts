// The standby-failover bench's figures: one row per numStandbyReplicas (the worst of the moved
// tasks, since the failover is over when the last of them commits), the moved tasks one by one,
// printed and written to bench/results/standby-failover.md (the latest run).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { mdTable, RESULTS_DIR } from '../word-count/results.ts';

/** A task of the killed instance, as it came back on another one. */
export interface MovedTask {
  task: string;
  /** The instance (0-2) that took it. */
  to: number;
  /** Its stores' changelog end offsets at the kill (0 for a stateless task). */
  stateRecords: number;
  /** Changelog records its new owner restored (the app's restore listener, onRestoreEnd). */
  restored: number;
  killToAssignmentMs: number;
  /** The restore: from the new owner's assignment to the task logged running. */
  assignmentToRunningMs: number;
  assignmentToCommitMs: number;
  killToCommitMs: number;
}

export type CaseRow =
  | { standbys: number; unavailable: string }
  | { standbys: number; fillSeconds: number; victim: number; victimState: number; moved: MovedTask[] };

export interface RunInfo {
  date: string;
  code: string;
  keys: number;
  rate: number;
  partitions: number;
  sessionTimeoutMs: number;
  /** 1-minute load averages: at the start and after each case. */
  loadAverages: number[];
}

const TARGET_MS = 2_000;
const max = (xs: number[]) => Math.max(...xs);
const fmt = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '-');

function summaryRows(rows: CaseRow[]): string[][] {
  return rows.map((r) => {
    if ('unavailable' in r)
      return [String(r.standbys), 'standbys not available on this build', '', '', '', '', '', ''];
    const m = r.moved;
    const worst = max(m.map((t) => t.assignmentToCommitMs));
    const target = r.standbys > 0 ? ` (${worst <= TARGET_MS ? 'met' : 'missed'})` : '';
    return [
      String(r.standbys),
      `${m.length} (${m.filter((t) => t.stateRecords > 0).length} stateful)`,
      fmt(r.victimState),
      fmt(m.reduce((n, t) => n + t.restored, 0)),
      fmt(Math.min(...m.map((t) => t.killToAssignmentMs))),
      fmt(max(m.map((t) => t.assignmentToRunningMs))),
      `${fmt(worst)}${target}`,
      fmt(max(m.map((t) => t.killToCommitMs))),
    ];
  });
}

const SUMMARY_HEADER = [
  'standbys',
  'tasks moved',
  'state of the killed instance (records)',
  'records restored',
  'kill -> new assignment (ms)',
  'assignment -> running, slowest task (ms)',
  'assignment -> first commit, slowest task (ms)',
  'kill -> first commit elsewhere, last task (ms)',
];

function taskRows(rows: CaseRow[]): string[][] {
  return rows.flatMap((r) =>
    'unavailable' in r
      ? []
      : r.moved.map((t) => [
          String(r.standbys),
          t.task,
          `${r.victim} -> ${t.to}`,
          fmt(t.stateRecords),
          fmt(t.restored),
          fmt(t.killToAssignmentMs),
          fmt(t.assignmentToRunningMs),
          fmt(t.assignmentToCommitMs),
          fmt(t.killToCommitMs),
        ]),
  );
}

const TASK_HEADER = [
  'standbys',
  'task',
  'instance',
  'state (records)',
  'restored',
  'kill -> assignment',
  'assignment -> running',
  'assignment -> commit',
  'kill -> commit',
];

/** Prints the tables and writes bench/results/standby-failover.md; returns the file written. */
export function writeResults(rows: CaseRow[], run: RunInfo): string {
  const summary = mdTable(SUMMARY_HEADER, summaryRows(rows));
  const tasks = mdTable(TASK_HEADER, taskRows(rows));
  console.log([...summary, '', ...tasks].join('\n'));
  const refusals = rows.flatMap((r) =>
    'unavailable' in r ? [`- ${r.standbys} standby: ${r.unavailable.replace(/\s+/g, ' ')}`] : [],
  );
  const page = [
    '# Standby failover: kill -9 of the instance holding the most state',
    '',
    '<!-- Written by `npm run bench -- standby-failover` (bench/standby-failover/report.ts): the latest run. -->',
    '',
    `Run of ${run.date}, code ${run.code}: 3 instances (processes) of a word count under exactly_once, ` +
      `${run.partitions} partitions, stores filled with ${fmt(run.keys)} distinct words, then ${run.rate} lines/s; ` +
      `commit interval 100 ms, session timeout ${fmt(run.sessionTimeoutMs)} ms (the kill is noticed after it). ` +
      `Load average (1 min, 2 cores shared): ${run.loadAverages.map((l) => l.toFixed(1)).join(', ')} (start, after each case).`,
    '',
    `Target with a standby: each moved task committing within ${fmt(TARGET_MS)} ms of its new assignment, ` +
      'only the changelog tail restored.',
    '',
    ...summary,
    '',
    ...(refusals.length > 0 ? [...refusals, ''] : []),
    "State: the stateful tasks' changelog end offsets (transaction markers included) when the instance to kill was",
    "chosen; restored: the new owners' restore listener totals (onRestoreEnd). A task counts as back when the instance",
    'that took it logs its first commit of it.',
    '',
    'Each task of the killed instance (times in ms):',
    '',
    ...tasks,
    '',
  ].join('\n');
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = join(RESULTS_DIR, 'standby-failover.md');
  writeFileSync(file, page);
  return file;
}

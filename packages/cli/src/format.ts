// The human-readable report of `kstreams verify` (without --json).
import type { CheckMode, FindingKind, VerifyReport } from './check.ts';

const MODES: Record<CheckMode, string> = {
  sequences: 'per key 1..n, each once',
  increasing: 'per key strictly increasing (record cache output)',
  last: 'last value per key',
};

const LABELS: Record<FindingKind, string> = {
  duplicate: 'duplicates',
  gap: 'gaps (values missing below a key’s highest)',
  outOfOrder: 'out of order',
  loss: 'losses (final value short of expected, or key absent)',
  excess: 'excess (final value above expected)',
  mismatch: 'mismatches',
  unexpected: 'unexpected keys',
};

export function formatReport(report: VerifyReport): string {
  const lines = [
    `${report.topic ?? 'records'}: ${report.records} records, ${report.keys} keys; checked: ${MODES[report.mode]}`,
  ];
  for (const kind of Object.keys(LABELS) as FindingKind[]) {
    const n = report.counts[kind];
    if (n === 0) continue;
    lines.push(`  ${LABELS[kind]}: ${n} in ${report.keysAffected[kind]} keys, e.g.`);
    for (const f of report.examples[kind]) {
      const at = f.offset === undefined ? '' : ` (partition ${f.partition}, offset ${f.offset})`;
      lines.push(`    ${JSON.stringify(f.key)}: ${f.detail}${at}`);
    }
  }
  if (report.mode === 'sequences' && report.counts.gap > 0 && report.counts.duplicate === 0)
    lines.push(
      '  (gaps without duplicates are what a count written through the record cache looks like: ' +
        'statestoreCacheMaxBytes > 0, the default. Check such output with --expect-increasing.)',
    );
  lines.push(report.ok ? 'OK: no duplicates, gaps or losses' : 'FAILED');
  return lines.join('\n');
}

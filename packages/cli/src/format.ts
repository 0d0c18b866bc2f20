// The human-readable report of `kstreams verify` (without --json).
import type { FindingKind, VerifyReport } from './check.ts';

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
  const lines = [`${report.topic ?? 'records'}: ${report.records} records, ${report.keys} keys`];
  for (const kind of Object.keys(LABELS) as FindingKind[]) {
    const n = report.counts[kind];
    if (n === 0) continue;
    lines.push(`  ${LABELS[kind]}: ${n} in ${report.keysAffected[kind]} keys, e.g.`);
    for (const f of report.examples[kind]) {
      const at = f.offset === undefined ? '' : ` (partition ${f.partition}, offset ${f.offset})`;
      lines.push(`    ${JSON.stringify(f.key)}: ${f.detail}${at}`);
    }
  }
  lines.push(report.ok ? 'OK: no duplicates, gaps or losses' : 'FAILED');
  return lines.join('\n');
}

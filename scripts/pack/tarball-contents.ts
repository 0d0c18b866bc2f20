// What a packed package must hold: its built dist/ (every file its exports and bin name), its
// LICENSE, and nothing else but package.json and a README; no TypeScript but declarations, no
// tests, no build info; no `workspace:` dependency (npm cannot install one).
import { execFileSync } from 'node:child_process';

export interface PackedManifest {
  name: string;
  exports?: Record<string, string | Record<string, string>>;
  bin?: string | Record<string, string>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

/** The tarball's file names (without npm's `package/` prefix) and its package.json. */
export function readTarball(tarball: string): { files: string[]; manifest: PackedManifest } {
  const files = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' })
    .split('\n')
    .filter((f) => f !== '' && !f.endsWith('/'))
    .map((f) => f.replace(/^package\//, ''));
  const manifest = JSON.parse(
    execFileSync('tar', ['-xzOf', tarball, 'package/package.json'], { encoding: 'utf8' }),
  ) as PackedManifest;
  return { files, manifest };
}

/** Every problem found; empty when the tarball is fit to publish. */
export function tarballProblems(files: readonly string[], manifest: PackedManifest): string[] {
  const problems: string[] = [];
  const has = new Set(files);
  const allowed = (f: string) =>
    ['package.json', 'LICENSE', 'README.md'].includes(f) || f.startsWith('dist/');
  for (const f of files) {
    if (!allowed(f)) problems.push(`${f}: only dist/, package.json, README.md and LICENSE belong in it`);
    else if (/\.[cm]?tsx?$/.test(f) && !/\.d\.[cm]?ts$/.test(f)) problems.push(`${f}: TypeScript source`);
    else if (/(^|\/)(test|tests|__tests__)\/|\.test\.|\.test-d\./.test(f)) problems.push(`${f}: a test`);
    else if (f.endsWith('.tsbuildinfo')) problems.push(`${f}: tsc's build info`);
  }
  if (!has.has('LICENSE')) problems.push('no LICENSE');
  const targets = [...new Set([...exportTargets(manifest.exports), ...binTargets(manifest.bin)])];
  if (targets.length === 0) problems.push('package.json names no export and no bin');
  for (const t of targets) {
    const file = t.replace(/^\.\//, '');
    if (!file.startsWith('dist/'))
      problems.push(`${t}: exports and bin must point into dist/ (run pnpm pack)`);
    if (!has.has(file))
      problems.push(`${t}: named in package.json, missing from the tarball (was dist/ built?)`);
  }
  for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies'] as const) {
    for (const [dep, range] of Object.entries(manifest[field] ?? {})) {
      if (range.startsWith('workspace:')) problems.push(`${field} ${dep}@${range}: pack with pnpm`);
    }
  }
  return problems;
}

function exportTargets(exports: PackedManifest['exports']): string[] {
  if (!exports) return [];
  return Object.values(exports).flatMap((e) => (typeof e === 'string' ? [e] : Object.values(e)));
}

function binTargets(bin: PackedManifest['bin']): string[] {
  if (!bin) return [];
  return typeof bin === 'string' ? [bin] : Object.values(bin);
}

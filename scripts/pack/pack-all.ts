// Packs the published packages as npm would publish them: builds dist/ (npm run build), then
// `pnpm pack`s each package into one folder. pnpm, not npm: it turns `workspace:*` into the
// packages' versions and applies publishConfig (exports and bin into dist/); npm pack does neither.
// Used by the consumer test and the starter's test; `tsx scripts/pack/pack-all.ts DIR` from a shell.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildPackages, PUBLISHED, type PublishedName, REPO_ROOT } from '../build/build.ts';

export { PUBLISHED, type PublishedName } from '../build/build.ts';

export interface PackOptions {
  /** Build dist/ first (default true); false packs what dist/ holds now. */
  build?: boolean;
}

/** The tarballs' absolute paths, by package name. */
export function packAll(outDir: string, options: PackOptions = {}): Record<PublishedName, string> {
  if (options.build !== false) buildPackages();
  mkdirSync(outDir, { recursive: true });
  const pnpm = (
    JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { packageManager: string }
  ).packageManager;
  const tarballs = {} as Record<PublishedName, string>;
  for (const [name, dir] of Object.entries(PUBLISHED) as [PublishedName, string][]) {
    const out = execFileSync('npx', ['--yes', pnpm, 'pack', '--json', '--pack-destination', outDir], {
      cwd: join(REPO_ROOT, 'packages', dir),
      encoding: 'utf8',
    });
    tarballs[name] = resolve(outDir, (JSON.parse(out) as { filename: string }).filename);
  }
  return tarballs;
}

if (resolve(process.argv[1] ?? '') === import.meta.filename) {
  const outDir = process.argv[2];
  if (!outDir) throw new Error('usage: tsx scripts/pack/pack-all.ts OUT_DIR');
  console.log(JSON.stringify(packAll(resolve(outDir)), null, 2));
}

// `npm run build`: the published packages from src/ to dist/ (ES modules, .d.ts, declaration
// maps) with tsc and each package's tsconfig.build.json, whose rewriteRelativeImportExtensions
// turns the sources' `./x.ts` imports into `./x.js`; then the status page's assets. Each dist/ is
// removed first so that a module deleted from src/ never ships from an old build.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';

export const REPO_ROOT = join(import.meta.dirname, '..', '..');

/** The packages published to npm, by folder under packages/, dependencies first. */
export const PUBLISHED = {
  '@kstreams/state-store': 'state-store',
  '@kstreams/core': 'core',
  '@kstreams/http': 'http',
  '@kstreams/cli': 'cli',
  '@kstreams/schema-registry': 'schema-registry',
} as const;
export type PublishedName = keyof typeof PUBLISHED;

export function buildPackages(): void {
  const dirs = Object.values(PUBLISHED).map((dir) => join(REPO_ROOT, 'packages', dir));
  for (const dir of dirs) rmSync(join(dir, 'dist'), { recursive: true, force: true });
  const resolveBin = createRequire(join(REPO_ROOT, 'package.json')).resolve;
  const run = (args: string[]) => execFileSync(process.execPath, args, { cwd: REPO_ROOT, stdio: 'inherit' });
  run([resolveBin('typescript/bin/tsc'), '-b', ...dirs.map((d) => join(d, 'tsconfig.build.json'))]);
  run([resolveBin('tsx/cli'), join(REPO_ROOT, 'packages', 'http', 'build', 'assets.ts')]);
}

if (resolve(process.argv[1] ?? '') === import.meta.filename) buildPackages();

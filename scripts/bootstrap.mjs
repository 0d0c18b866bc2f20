// Installs the workspace's dependencies with the pinned pnpm when they are missing or older
// than the lockfile, so that `npm test` and `npm run demo` work on a fresh clone with only Node.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, utimesSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const pnpmSpec = pkg.packageManager; // e.g. pnpm@12.4.2
const marker = join(root, 'node_modules', '.modules.yaml');
const lock = join(root, 'pnpm-lock.yaml');

const stale = !existsSync(marker) || (existsSync(lock) && statSync(lock).mtimeMs > statSync(marker).mtimeMs);
if (stale) {
  const args = ['--yes', pnpmSpec, 'install'];
  if (existsSync(lock) && process.env.CI) args.push('--frozen-lockfile');
  console.log(`[bootstrap] installing dependencies with ${pnpmSpec}`);
  execFileSync('npx', args, { cwd: root, stdio: 'inherit' });
  // pnpm leaves the marker as it was when nothing needed installing (a lockfile that only moved
  // a dependency to devDependencies, or was checked out anew): without this every run reinstalls.
  if (existsSync(marker)) {
    const now = new Date();
    utimesSync(marker, now, now);
  }
}

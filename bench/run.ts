// Benchmark runner: `npx tsx bench/run.ts [name...]` runs bench/<name>.bench.ts for each name (or
// every *.bench.ts here when none is given), each in its own Node process so that one benchmark's
// heap, JIT state and peak RSS do not colour the next one's figures.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const benchDir = fileURLToPath(new URL('.', import.meta.url));
const repoRoot = join(benchDir, '..');
const SUFFIX = '.bench.ts';

function available(): string[] {
  return readdirSync(benchDir)
    .filter((file) => file.endsWith(SUFFIX))
    .map((file) => file.slice(0, -SUFFIX.length))
    .sort();
}

function runOne(name: string): Promise<number> {
  const file = join(benchDir, `${name}${SUFFIX}`);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', file], { cwd: repoRoot, stdio: 'inherit' });
    child.on('error', (err) => {
      console.error(`bench ${name}: could not start: ${err.message}`);
      resolve(1);
    });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

const requested = process.argv.slice(2);
const names = requested.length > 0 ? requested : available();
const unknown = names.filter((name) => !existsSync(join(benchDir, `${name}${SUFFIX}`)));
if (unknown.length > 0) {
  console.error(
    `Unknown benchmark(s): ${unknown.join(', ')}. Available: ${available().join(', ') || '(none)'}.`,
  );
  process.exit(2);
}
if (names.length === 0) {
  console.error(`No *${SUFFIX} files in ${benchDir}.`);
  process.exit(2);
}

let failed = 0;
for (const name of names) {
  console.log(`\n=== ${name} ===`);
  const started = performance.now();
  const code = await runOne(name);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(`=== ${name}: ${code === 0 ? 'ok' : `FAILED (exit ${code})`} in ${seconds} s ===`);
  if (code !== 0) failed++;
}
process.exit(failed > 0 ? 1 : 0);

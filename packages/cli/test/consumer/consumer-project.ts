// A project outside the workspace that depends on the packed packages as a user's would: the
// tarballs from scripts/pack/pack-all.ts (packed once per run, scripts/test/packed.ts) installed
// with npm (not pnpm) under os.tmpdir(), with the files of app/ (JavaScript, CommonJS and strict
// TypeScript services) and TypeScript to compile.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { PublishedName } from '../../../../scripts/pack/pack-all.ts';
import { readTarball, tarballProblems } from '../../../../scripts/pack/tarball-contents.ts';
import { packedTarballs } from '../../../../scripts/test/packed.ts';

const REPO_ROOT = join(import.meta.dirname, '..', '..', '..', '..');
const run = promisify(execFile);

/** npm install, quiet, from npm's cache where it has the package (the test runs often). */
export const NPM_INSTALL = ['install', '--no-audit', '--no-fund', '--prefer-offline'];

/** The tsx the workspace pins, which `kstreams describe` uses for a .ts module when a project has it. */
export const TSX = `tsx@${workspaceVersion('tsx')}`;

export interface ConsumerProject {
  /** The temporary folder holding the project; removed after the test (the tarballs after the run). */
  root: string;
  dir: string;
  tarballs: Record<PublishedName, string>;
  /** Seconds each step took: pack (with the build; ~0 when an earlier file packed), npm install. */
  timings: Record<string, number>;
}

/** The workspace's own version of a tool, so that the project compiles with what the repo pins. */
function workspaceVersion(pkg: string): string {
  const file = createRequire(join(REPO_ROOT, 'package.json')).resolve(`${pkg}/package.json`);
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

export async function createConsumerProject(): Promise<ConsumerProject> {
  const root = mkdtempSync(join(tmpdir(), 'kstreams-consumer-'));
  try {
    return await fillProject(root);
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
}

async function fillProject(root: string): Promise<ConsumerProject> {
  const timings: Record<string, number> = {};
  let t = performance.now();
  // KSTREAMS_PACK_BUILD=0 packs what dist/ holds now: to see what this test says of a package that
  // was built wrong or not at all (delete a dist/ first).
  const tarballs = packedTarballs();
  timings.pack = (performance.now() - t) / 1000;
  // Installing and running packages that cannot work would only bury the reason under later failures.
  const problems = Object.entries(tarballs).flatMap(([name, tarball]) => {
    const { files, manifest } = readTarball(tarball);
    return tarballProblems(files, manifest).map((p) => `${name}: ${p}`);
  });
  if (problems.length > 0) throw new Error(`the packed packages are unfit:\n${problems.join('\n')}`);
  const dir = join(root, 'app');
  cpSync(join(import.meta.dirname, 'app'), dir, { recursive: true });
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
  );
  t = performance.now();
  await run(
    'npm',
    [
      ...NPM_INSTALL,
      ...Object.values(tarballs),
      `typescript@${workspaceVersion('typescript')}`,
      `@types/node@${workspaceVersion('@types/node')}`,
    ],
    { cwd: dir },
  );
  timings.npmInstall = (performance.now() - t) / 1000;
  return { root, dir, tarballs, timings };
}

export interface Output {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command in the project to its end; never throws on a non-zero exit (the test looks). */
export async function runIn(dir: string, command: string, args: string[]): Promise<Output> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd: dir, timeout: 120_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** A long-running service started with `node`, resolved once it printed RUNNING. */
export async function startService(
  dir: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ child: ChildProcess; output: () => string; stop: () => Promise<number | null> }> {
  const child = spawn(process.execPath, args, { cwd: dir, env: { ...process.env, ...env } });
  let output = '';
  child.stdout.on('data', (d) => {
    output += d;
  });
  child.stderr.on('data', (d) => {
    output += d;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${args.join(' ')} did not start:\n${output}`)), 60_000);
    const check = () => {
      if (output.includes('RUNNING')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', check);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`${args.join(' ')} exited before RUNNING:\n${output}`));
    });
  });
  return {
    child,
    output: () => output,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

// `npm create kstreams` as a user runs it, outside the workspace: the packed create-kstreams writes
// a project that depends on the packed kstreams packages; npm installs it, its own tests pass, tsc
// builds it, and `node dist/main.js` counts words against the broker and closes on SIGTERM.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTarball } from '../../../scripts/pack/tarball-contents.ts';
import { testBrokers, topicsForThisFile, uniqueName } from '../../../scripts/test/kafka.ts';
import { packedTarballs } from '../../../scripts/test/packed.ts';
import { lastCounts, produce, type ReadRecord, readTopic } from '../../core/test/runtime/kafka-helpers.ts';

const run = promisify(execFile);
const PACKAGE_DIR = join(import.meta.dirname, '..');
const REPO_ROOT = join(PACKAGE_DIR, '..', '..');
const NPM_TIMEOUT_MS = 300_000;

/**
 * The environment of a user's shell: without what vitest and an outer npm or pnpm run set (the
 * project's own vitest must not think it runs inside this one; npm_config_* would steer npm).
 */
function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^(VITEST|npm_|NODE_OPTIONS$|NODE_ENV$|FORCE_COLOR$|KAFKA_BROKERS$)/.test(key)) continue;
    env[key] = value;
  }
  // Plain text to match on.
  return { ...env, NO_COLOR: '1', ...extra };
}

async function npm(cwd: string, args: string[]): Promise<string> {
  try {
    const { stdout, stderr } = await run('npm', args, {
      cwd,
      env: userEnv(),
      timeout: NPM_TIMEOUT_MS,
      maxBuffer: 64 * 1024 * 1024,
    });
    return stdout + stderr;
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`npm ${args.join(' ')} failed in ${cwd}:\n${stdout}\n${stderr}`);
  }
}

/** `step()`, failed if `failure` rejects first or it takes longer than `ms`. */
async function within<T>(
  ms: number,
  what: string,
  failure: Promise<never>,
  step: () => Promise<T>,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took more than ${ms / 1000} s`)), ms);
  });
  try {
    return await Promise.race([step(), failure, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The words of a line by the starter's rule (Kafka Streams' WordCountDemo): lower case, split on \W+. */
const wordsOf = (line: string) =>
  line
    .toLowerCase()
    .split(/\W+/)
    .filter((word) => word.length > 0);

describe('npm create kstreams, from the packed tarballs', () => {
  const topics = topicsForThisFile();
  const work = mkdtempSync(join(tmpdir(), 'create-kstreams-int-'));
  const project = join(work, 'my-app');
  const seconds: Record<string, number> = {};
  let tarballs: Record<string, string>;
  let app: ChildProcess | undefined;

  async function timed<T>(phase: string, step: () => Promise<T>): Promise<T> {
    const started = Date.now();
    const result = await step();
    seconds[phase] = (Date.now() - started) / 1000;
    return result;
  }

  beforeAll(async () => {
    tarballs = await timed('pack', async () => {
      // The kstreams packages as this run packed them (once, for this file and the consumer test).
      const packed: Record<string, string> = packedTarballs();
      const packs = join(work, 'packs');
      mkdirSync(packs);
      // create-kstreams is plain JavaScript, packed as it is, by the same pnpm as the others.
      const pnpm = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')).packageManager;
      const { stdout } = await run('npx', ['--yes', pnpm, 'pack', '--json', '--pack-destination', packs], {
        cwd: PACKAGE_DIR,
        env: userEnv(),
      });
      return { ...packed, 'create-kstreams': join(packs, basename(JSON.parse(stdout).filename)) };
    });
  }, NPM_TIMEOUT_MS);

  afterAll(async () => {
    app?.kill('SIGKILL');
    console.log(
      `[starter] seconds: ${Object.entries(seconds)
        .map(([phase, s]) => `${phase} ${s.toFixed(1)}`)
        .join(', ')}`,
    );
    rmSync(work, { recursive: true, force: true });
  });

  it('packs create-kstreams with its templates and without its tests', () => {
    const { files, manifest } = readTarball(tarballs['create-kstreams']!);
    expect(files).toContain('bin/create-kstreams.js');
    expect(files).toContain('templates/_gitignore');
    expect(files).toContain('templates/src/main.ts');
    expect(files).toContain('LICENSE');
    expect(files.filter((f) => f.startsWith('test/'))).toEqual([]);
    expect(JSON.stringify(manifest)).not.toContain('workspace:');
  });

  it(
    'scaffolds a project with npm exec, as `npm create kstreams` does',
    async () => {
      const output = await timed('scaffold', () =>
        npm(work, [
          'exec',
          '--yes',
          `--package=${tarballs['create-kstreams']}`,
          '--',
          'create-kstreams',
          'my-app',
          '--spec',
          `@kstreams/core=file:${tarballs['@kstreams/core']}`,
          '--spec',
          `@kstreams/state-store=file:${tarballs['@kstreams/state-store']}`,
        ]),
      );
      expect(output).toContain(`Created my-app in ${project}`);
      expect(readdirSync(project).sort()).toEqual([
        '.dockerignore',
        '.gitignore',
        'Dockerfile',
        'README.md',
        'compose.yaml',
        'package.json',
        'src',
        'test',
        'tsconfig.build.json',
        'tsconfig.json',
      ]);
    },
    NPM_TIMEOUT_MS,
  );

  it(
    'installs with npm, passes its own tests and type check, and builds with tsc',
    async () => {
      const installed = await timed('npm install', () =>
        npm(project, ['install', '--no-audit', '--no-fund']),
      );
      // No dependency wanting a newer Node than the packages declare, no install script unapproved.
      expect(installed).not.toMatch(/EBADENGINE|install-scripts/);
      const tested = await timed('npm test', () => npm(project, ['test']));
      expect(tested).toMatch(/Tests\s+4 passed \(4\)/);
      await timed('typecheck + build', async () => {
        await npm(project, ['run', 'typecheck']);
        await npm(project, ['run', 'build']);
      });
      expect(existsSync(join(project, 'dist', 'main.js'))).toBe(true);
    },
    3 * NPM_TIMEOUT_MS,
  );

  it('counts words against the broker with node dist/main.js (npm start), and closes on SIGTERM', async () => {
    const applicationId = uniqueName('starter');
    topics.cleanUpPrefix(applicationId);
    const input = await topics.create('starter-text-input', 2);
    const output = await topics.create('starter-word-counts', 2);
    const stateDir = join(work, 'state');
    const started = Date.now();

    // `node dist/main.js` (what `npm start` runs), so that the signal reaches the app itself.
    const child = spawn(process.execPath, ['dist/main.js'], {
      cwd: project,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: userEnv({
        KAFKA_BROKERS: testBrokers().join(','),
        APPLICATION_ID: applicationId,
        INPUT_TOPIC: input,
        OUTPUT_TOPIC: output,
        PROCESSING_GUARANTEE: 'exactly_once_v2',
        STATE_DIR: stateDir,
      }),
    });
    app = child;
    let logs = '';
    for (const stream of [child.stdout, child.stderr]) stream?.on('data', (d: Buffer) => (logs += d));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    // Rejects when the app exits before the test stops it; handled here, raced below.
    const exitedEarly = exited.then((code) => {
      throw new Error(`the app exited (${code}) while the test still needed it:\n${logs}`);
    });
    exitedEarly.catch(() => {});
    await within(60_000, 'the app starting', exitedEarly, async () => {
      while (!logs.includes('Counting the words of') && child.exitCode === null && child.signalCode === null)
        await new Promise((r) => setTimeout(r, 100));
    });

    const vocabulary = ['Kafka', 'streams', 'TypeScript', 'state', 'store', 'topic', 'changelog'];
    const lines = Array.from(
      { length: 300 },
      (_, i) => `${vocabulary[i % 7]} and ${vocabulary[(i * 3) % 7]}, line ${i % 11}!`,
    );
    const truth = new Map<string, number>();
    for (const word of lines.flatMap(wordsOf)) truth.set(word, (truth.get(word) ?? 0) + 1);

    await produce(
      input,
      lines.map((value) => ({ key: null, value })),
    );

    // The latest count of each word, read_committed as a downstream consumer of an
    // exactly_once_v2 app reads them; counts only grow, so they settle on the truth.
    const settled = (records: ReadRecord[]) => {
      const counts = lastCounts(records);
      return counts.size === truth.size && [...truth].every(([w, n]) => counts.get(w) === n);
    };
    const records = await within(90_000, 'the counts settling on the truth', exitedEarly, () =>
      readTopic(output, (r) => settled(r) || child.exitCode !== null || child.signalCode !== null, {
        timeoutMs: 90_000,
      }),
    );
    const latest = lastCounts(records);
    expect(latest).toEqual(truth);
    // Every line is "<word> and <word>, line <n>!": five words.
    expect([...latest.values()].reduce((a, b) => a + b, 0)).toBe(5 * lines.length);
    seconds['counted on the broker'] = (Date.now() - started) / 1000;

    const closing = Date.now();
    child.kill('SIGTERM');
    expect(await exited, logs).toBe(0);
    seconds['close on SIGTERM'] = (Date.now() - closing) / 1000;
    expect(logs).toContain('SIGTERM: closing');
    // kstreams' own log: the close ran to its end (commit, stores closed, group left).
    expect(logs).toMatch(/"state":"NOT_RUNNING","previous":"PENDING_SHUTDOWN"/);
    // The store lived where STATE_DIR said.
    expect(readdirSync(join(stateDir, applicationId)).length).toBeGreaterThan(0);
  }, 180_000);
});

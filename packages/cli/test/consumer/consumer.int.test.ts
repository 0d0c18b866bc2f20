// The packages as a user gets them: packed (scripts/pack/pack-all.ts builds dist/ first), installed
// with npm into a project under os.tmpdir(), then used with plain Node on the real broker: a word
// count in ESM JavaScript, a strict TypeScript service compiled by tsc (node16 and bundler), require()
// from CommonJS, the kstreams bin (describe, lag), and the HTTP plugin's status page, also bundled.
import { copyFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUBLISHED, type PublishedName } from '../../../../scripts/pack/pack-all.ts';
import { readTarball, tarballProblems } from '../../../../scripts/pack/tarball-contents.ts';
import { testBrokers, topicsForThisFile } from '../../../../scripts/test/kafka.ts';
import { lastCounts, produce, readTopic, tempStateDir } from '../../../core/test/runtime/kafka-helpers.ts';
import { countWords, makeLines } from '../../../core/test/runtime/text-fixtures.ts';
import type { LagRow } from '../../src/ops/lag.ts';
import {
  type ConsumerProject,
  createConsumerProject,
  NPM_INSTALL,
  runIn,
  startService,
  TSX,
} from './consumer-project.ts';

const topics = topicsForThisFile();
const brokers = testBrokers().join(',');
const lines = makeLines(200, 5);
const expected = countWords(lines);
const started = performance.now();
let project: ConsumerProject;

/** Starts a word-count service, feeds it the lines and waits for its counts on the output topic. */
async function countWordsWith(label: string, args: string[]) {
  const { input, output, applicationId } = await topics.forApp(`consumer-${label}`, 2);
  const service = await startService(project.dir, args, {
    BROKERS: brokers,
    INPUT: input,
    OUTPUT: output,
    APPLICATION_ID: applicationId,
    STATE_DIR: tempStateDir(),
  });
  try {
    await produce(
      input,
      lines.map((value, i) => ({ key: String(i), value })),
    );
    const records = await readTopic(output, (r) => {
      const counts = lastCounts(r);
      return [...expected].every(([w, n]) => counts.get(w) === n);
    });
    expect(Object.fromEntries(lastCounts(records))).toEqual(Object.fromEntries(expected));
    return { applicationId, input, service };
  } catch (error) {
    await service.stop();
    throw new Error(`${(error as Error).message}\nthe service's output:\n${service.output()}`);
  }
}

describe('the packed packages in a project of their own', () => {
  beforeAll(async () => {
    project = await createConsumerProject();
  }, 300_000);
  afterAll(() => {
    const total = (performance.now() - started) / 1000;
    console.log(`[consumer] ${JSON.stringify({ ...project?.timings, total })} seconds`);
    if (project) rmSync(project.root, { recursive: true, force: true });
  });

  it('packs dist/, LICENSE and package.json only, with every export and bin target built', () => {
    for (const name of Object.keys(PUBLISHED) as PublishedName[]) {
      const { files, manifest } = readTarball(project.tarballs[name]);
      expect(manifest.name).toBe(name);
      expect(tarballProblems(files, manifest), name).toEqual([]);
      const kb = (statSync(project.tarballs[name]).size / 1024).toFixed(0);
      console.log(`[consumer] ${name}: ${files.length} files, ${kb} kB packed`);
    }
  });

  it('(a) runs a word count in plain ESM JavaScript with node; the kstreams bin shows its lag', async () => {
    const { applicationId, input, service } = await countWordsWith('js', ['word-count.mjs']);
    try {
      const lag = await runIn(project.dir, 'npx', [
        'kstreams',
        'lag',
        '--application-id',
        applicationId,
        '--brokers',
        brokers,
        '--json',
      ]);
      expect(lag.stderr).toBe('');
      const rows = (JSON.parse(lag.stdout) as LagRow[]).filter((r) => r.topic === input);
      expect(rows.map((r) => r.partition).sort()).toEqual([0, 1]);
      expect(rows.reduce((sum, r) => sum + r.end, 0)).toBe(lines.length);
    } finally {
      expect(await service.stop()).toBe(0);
    }
  });

  it('(b) compiles a strict TypeScript service with tsc under node16 and bundler, and runs each', async () => {
    for (const resolution of ['node16', 'bundler']) {
      const tsc = await runIn(project.dir, 'npx', ['tsc', '-p', `tsconfig.${resolution}.json`]);
      expect(tsc.stdout + tsc.stderr, `tsc ${resolution}`).toBe('');
      expect(tsc.code).toBe(0);
      const { service } = await countWordsWith(`ts-${resolution}`, [join(`out-${resolution}`, 'service.js')]);
      expect(await service.stop()).toBe(0);
    }
  });

  it('(c) require()s every package from CommonJS and runs a topology in the test driver', async () => {
    const r = await runIn(project.dir, process.execPath, ['require.cjs']);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ a: 1, b: 3, c: 1 });
  });

  it('(d) the kstreams bin describes a JS module; a TS one through the project tsx, or asks for it', async () => {
    const describeFile = (file: string) => runIn(project.dir, 'npx', ['kstreams', 'describe', file]);
    const js = await describeFile('topology.mjs');
    expect(js.code).toBe(0);
    expect(js.stdout).toContain('Source: KSTREAM-SOURCE-0000000000 (topics: [lines])');
    expect(js.stdout).toContain('word-counts');
    copyFileSync(join(project.dir, 'topology.mjs'), join(project.dir, 'topology.ts'));
    const withoutTsx = await describeFile('topology.ts');
    expect(withoutTsx.code, withoutTsx.stderr).toBe(2); // the CLI's code for a failed command
    expect(withoutTsx.stderr).toContain('topology.ts is TypeScript');
    expect(withoutTsx.stderr).toContain('npm install --save-dev tsx');
    const install = await runIn(project.dir, 'npm', [...NPM_INSTALL, '-D', TSX]);
    expect(install.code, install.stderr).toBe(0);
    const withTsx = await describeFile('topology.ts');
    expect(withTsx.stderr).toBe('');
    expect(withTsx.stdout).toBe(js.stdout);
  });

  it('serves the status page and mermaid from the installed package and from an esbuild bundle', async () => {
    await build({
      entryPoints: [join(project.dir, 'status-page.mjs')],
      outfile: join(project.dir, 'bundle', 'status-page.mjs'),
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      logLevel: 'error',
      // A native addon stays a file of node_modules; everything else, @kstreams/http included, is
      // in the bundle, which sits where no page file of the package is.
      external: ['classic-level'],
      banner: {
        js: "import { createRequire as cr } from 'node:module'; const require = cr(import.meta.url);",
      },
    });
    for (const entry of ['status-page.mjs', join('bundle', 'status-page.mjs')]) {
      const r = await runIn(project.dir, process.execPath, [entry]);
      expect(r.stderr, entry).toBe('');
      const answers = JSON.parse(r.stdout) as Record<
        string,
        { status: number; type: string; length: number }
      >;
      for (const [path, answer] of Object.entries(answers))
        expect(answer.status, `${entry} ${path}`).toBe(200);
      expect(answers['/']?.type).toBe('text/html; charset=utf-8');
      // mermaid's browser build, about 5.5 MB.
      expect(answers['/assets/mermaid.min.js']?.length).toBeGreaterThan(1_000_000);
    }
  });
});

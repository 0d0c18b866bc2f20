// The README's first app is what a new user copies: this extracts it from README.md, type checks it
// against @kstreams/core's source under the project's strict settings, and runs its topology
// through the TopologyTestDriver. (scripts/docs/readme-first-app.int.test.ts runs it whole,
// against the broker, and stops it with SIGTERM.)
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { Serdes, type Topology } from '../../packages/core/src/index.ts';
import { TopologyTestDriver } from '../../packages/core/src/testing/index.ts';
import { firstApp } from './readme.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const CORE = join(ROOT, 'packages/core/src/index.ts');

let previous: ts.Program | undefined;

/** The compiler's errors for `code` as a module of its own, with `@kstreams/core` as its source. */
function typeErrors(code: string): string[] {
  const file = join(ROOT, 'packages/examples/src/readme-first-app.ts');
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2023.d.ts'],
    types: ['node'],
    strict: true,
    noUncheckedIndexedAccess: true,
    allowImportingTsExtensions: true,
    skipLibCheck: true,
    noEmit: true,
    paths: { '@kstreams/core': [CORE] },
  };
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (name) => name === file || fileExists.call(host, name);
  host.readFile = (name) => (name === file ? code : readFile.call(host, name));
  host.getSourceFile = (name, version, ...rest) =>
    name === file
      ? ts.createSourceFile(name, code, version)
      : getSourceFile.call(host, name, version, ...rest);
  // The second check reuses the first program (10.6 s -> 7.7 s for both, 2026-12-05).
  const program = ts.createProgram([file], options, host, previous);
  previous = program;
  const source = program.getSourceFile(file)!;
  return [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)].map((d) =>
    ts.flattenDiagnosticMessageText(d.messageText, '\n'),
  );
}

describe("README's first app", () => {
  const app = firstApp(readFileSync(join(ROOT, 'README.md'), 'utf8'));

  it('is a whole service of about 20 lines: builds, starts, and closes on SIGTERM and SIGINT', () => {
    const lines = app.split('\n').filter((l) => l.trim() !== '');
    expect(lines.length).toBeLessThanOrEqual(30);
    for (const part of [
      'new StreamsBuilder()',
      'new KafkaStreams(',
      'await app.start()',
      'await app.close()',
    ])
      expect(app).toContain(part);
    expect(app).toMatch(/SIGTERM/);
    expect(app).toMatch(/SIGINT/);
  });

  it('type checks against @kstreams/core under strict settings', () => {
    expect(typeErrors(app)).toEqual([]);
    // The check is not vacuous: a call the API does not have is an error.
    expect(typeErrors(app.replace('await app.start()', 'await app.begin()')).join('\n')).toContain(
      "Property 'begin' does not exist",
    );
  });

  it('counts words: its topology through the TopologyTestDriver', async () => {
    const [building] = app.split('const app = new KafkaStreams(');
    const dir = mkdtempSync(join(tmpdir(), 'kstreams-readme-'));
    const module = join(dir, 'topology.ts');
    writeFileSync(
      module,
      `${building!.replace("'@kstreams/core'", JSON.stringify(CORE))}\nexport const topology = builder.build();\n`,
    );
    const { topology } = (await import(module)) as { topology: Topology };
    rmSync(dir, { recursive: true, force: true });
    const driver = new TopologyTestDriver(topology, { applicationId: 'word-count' });
    const lines = driver.createInputTopic('text-lines', Serdes.String(), Serdes.String());
    const counts = driver.createOutputTopic('word-counts', Serdes.String(), Serdes.Long());
    await lines.pipeInput(null, 'The cat and the hat.');
    await lines.pipeInput(null, 'THE END');
    expect(counts.readKeyValuesToMap()).toEqual(
      new Map([
        ['the', 3],
        ['cat', 1],
        ['and', 1],
        ['hat', 1],
        ['end', 1],
      ]),
    );
    expect(driver.getKeyValueStore<string, number>('counts').get('the')).toBe(3);
    await driver.close();
  });
});

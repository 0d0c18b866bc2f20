// The layering rules of docs/architecture.md, checked on every unit run: no import cycle between
// folders of core/src, kafkajs only from core/src/kafka/, and kafkajs' own files (`kafkajs/src/...`)
// only from the patches that kafka/kafkajs-patches.ts installs. Imports are read with the TypeScript
// compiler's own pre-processor, so type-only imports count as well.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), '../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Each file's import specifiers (static imports, re-exports, dynamic imports). */
function importsOf(file: string): string[] {
  const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return info.importedFiles.map((f) => f.fileName);
}

/**
 * The folder a file belongs to, relative to src. A file directly in src (errors.ts, the index) is a
 * node of its own: everyone imports errors.ts, and the index imports everyone.
 */
function folderOf(file: string): string {
  const folder = relative(SRC, dirname(file)).split('\\').join('/');
  if (folder === '') return relative(SRC, file);
  // `x/internals/` is the implementation half of `x/`'s API, as in Kafka Streams: the public
  // Topology and KStream wrap internal builders, which in turn implement the public Processor,
  // Record and KTable types. So the two count as one folder; `internals/assignment/` stays apart.
  return folder.endsWith('/internals') ? folder.slice(0, -'/internals'.length) : folder;
}

function folderGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of sourceFiles(SRC)) {
    const from = folderOf(file);
    const edges = graph.get(from) ?? new Set<string>();
    graph.set(from, edges);
    for (const spec of importsOf(file)) {
      if (!spec.startsWith('.')) continue;
      const to = folderOf(resolve(dirname(file), spec));
      if (to !== from) edges.add(to);
    }
  }
  return graph;
}

/** Every cycle's folders, found as the strongly connected components (Tarjan) with more than one folder. */
function cycles(graph: Map<string, Set<string>>): string[][] {
  let index = 0;
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    indexOf.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!indexOf.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, indexOf.get(w)!));
    }
    if (low.get(v) === indexOf.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!indexOf.has(v)) visit(v);
  return found;
}

/** File to file, for the cycles inside one folder (restore.ts and the stream thread, once). */
function fileGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const file of sourceFiles(SRC)) {
    const targets = importsOf(file)
      .filter((spec) => spec.startsWith('.'))
      .map((spec) =>
        relative(SRC, resolve(dirname(file), spec))
          .split('\\')
          .join('/'),
      );
    graph.set(relative(SRC, file).split('\\').join('/'), new Set(targets));
  }
  return graph;
}

/**
 * The kafkajs files a source names (`kafkajs/...`, however it loads them: import, require, a
 * resolve of the path); the package itself ('kafkajs') is not one.
 */
export function deepKafkajsPaths(text: string): string[] {
  return [...text.matchAll(/['"`](kafkajs\/[^'"`]*)['"`]/g)].map((m) => m[1]!);
}

/** kafka/kafkajs-patches.ts, the patches it imports, and the two helpers the patches share. */
function kafkajsPatchModule(): Set<string> {
  const installer = join(SRC, 'kafka', 'kafkajs-patches.ts');
  const patches = importsOf(installer)
    .filter((spec) => spec.startsWith('.'))
    .map((spec) =>
      relative(SRC, resolve(dirname(installer), spec))
        .split('\\')
        .join('/'),
    );
  return new Set([
    'kafka/kafkajs-patches.ts',
    'kafka/kafkajs-modules.ts',
    'kafka/kafkajs-protocol.ts',
    ...patches,
  ]);
}

describe('core/src imports', () => {
  it('form no cycle between folders', () => {
    expect(cycles(folderGraph())).toEqual([]);
  });

  it('form no cycle between files, but among the DSL classes of kstream/', () => {
    const outsideDsl = cycles(fileGraph()).filter((c) => !c.every((file) => file.startsWith('kstream/')));
    expect(outsideDsl).toEqual([]);
  });

  it('finds a cycle when there is one', () => {
    const graph = new Map([
      ['a', new Set(['b'])],
      ['b', new Set(['c'])],
      ['c', new Set(['a'])],
      ['d', new Set(['a'])],
    ]);
    expect(cycles(graph)).toEqual([['a', 'b', 'c']]);
  });

  it('import kafkajs only in kafka/', () => {
    const offenders = sourceFiles(SRC)
      .filter((file) => importsOf(file).includes('kafkajs'))
      .map((file) => relative(SRC, file))
      .filter((path) => !path.startsWith('kafka/'));
    expect(offenders).toEqual([]);
  });

  it("reach into kafkajs' files only in the patch module (kafka/kafkajs-patches.ts and its patches)", () => {
    const allowed = kafkajsPatchModule();
    expect(allowed.has('kafka/fetch-decoding.ts')).toBe(true);
    const offenders = sourceFiles(SRC)
      .map((file) => relative(SRC, file).split('\\').join('/'))
      .filter((path) => !allowed.has(path))
      .filter((path) => deepKafkajsPaths(readFileSync(join(SRC, path), 'utf8')).length > 0);
    expect(offenders).toEqual([]);
  });

  it('finds a deep kafkajs path however it is named, and not the package itself', () => {
    const text = [
      "import x from 'kafkajs/src/index.js';",
      'const y = require("kafkajs/src/protocol/encoder.js");',
      'resolveKafkajsModule(`kafkajs/src/consumer/consumerGroup.js`);',
      "import { Kafka } from 'kafkajs';",
    ].join('\n');
    expect(deepKafkajsPaths(text)).toEqual([
      'kafkajs/src/index.js',
      'kafkajs/src/protocol/encoder.js',
      'kafkajs/src/consumer/consumerGroup.js',
    ]);
  });
});

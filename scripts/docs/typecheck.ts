// Type checks code taken from the docs as modules of their own, against the packages' source
// (`@kstreams/*` mapped to src/index.ts) under the project's strict settings.
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

const OPTIONS: ts.CompilerOptions = {
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
  paths: {
    '@kstreams/core': [join(ROOT, 'packages/core/src/index.ts')],
    '@kstreams/core/testing': [join(ROOT, 'packages/core/src/testing/index.ts')],
    '@kstreams/http': [join(ROOT, 'packages/http/src/index.ts')],
    '@kstreams/cli': [join(ROOT, 'packages/cli/src/index.ts')],
    '@kstreams/state-store': [join(ROOT, 'packages/state-store/src/index.ts')],
    '@kstreams/schema-registry': [join(ROOT, 'packages/schema-registry/src/index.ts')],
  },
};

/** Each module's compiler errors, by name; the modules are checked in one program. */
export function typeErrors(modules: Record<string, string>): Record<string, string[]> {
  // Virtual files beside the examples, so that their packages' types (node, fastify) resolve.
  const pathOf = (name: string) => join(ROOT, 'packages/examples/src', `${name}.docs-snippet.ts`);
  const byPath = new Map(Object.entries(modules).map(([name, code]) => [pathOf(name), code]));
  const host = ts.createCompilerHost(OPTIONS);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (path) => byPath.has(path) || fileExists.call(host, path);
  host.readFile = (path) => byPath.get(path) ?? readFile.call(host, path);
  host.getSourceFile = (path, version, ...rest) => {
    const code = byPath.get(path);
    return code === undefined
      ? getSourceFile.call(host, path, version, ...rest)
      : ts.createSourceFile(path, code, version);
  };
  const program = ts.createProgram([...byPath.keys()], OPTIONS, host);
  return Object.fromEntries(
    Object.keys(modules).map((name) => {
      const source = program.getSourceFile(pathOf(name))!;
      const diagnostics = [
        ...program.getSyntacticDiagnostics(source),
        ...program.getSemanticDiagnostics(source),
      ];
      return [name, diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))];
    }),
  );
}

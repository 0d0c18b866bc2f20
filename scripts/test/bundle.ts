// Bundles a TypeScript entry point (with the workspace's own packages) into one ESM file, so that
// tests can start it as a child process with plain `node` in a fraction of a second: crash tests
// start many processes, and compiling TypeScript at every start would dominate their time. The
// benchmark runs its apps the same way: as a deployed app runs, without a TypeScript loader (whose
// module-hooks thread alone adds about 35 MB of RSS).
import { mkdirSync, mkdtempSync } from 'node:fs';
import { createRequire, isBuiltin } from 'node:module';
import { basename, join } from 'node:path';
import { build } from 'esbuild';

const repoRoot = join(import.meta.dirname, '..', '..');
// @kstreams/core replaces parts of kafkajs through Node's module cache before kafkajs loads
// (kafka/producer-grouping.ts), resolving kafkajs' files from its own location at run time: the
// bundle must sit where `kafkajs` resolves to the same files as from packages/core.
const BUNDLE_ROOT = join(repoRoot, 'packages', 'core', 'node_modules', '.cache', 'kstreams-bundles');
// kafkajs is CommonJS. An external ESM import would be hoisted to the top of the bundle and so
// load kafkajs before core's replacements are installed; required from a bundled shim, it loads
// where the source imports it, as under tsx.
const LAZY_CJS = new Set(['kafkajs']);

const cache = new Map<string, Promise<string>>();

export function bundleEntry(entry: string): Promise<string> {
  let out = cache.get(entry);
  if (!out) {
    out = (async () => {
      mkdirSync(BUNDLE_ROOT, { recursive: true });
      const outfile = join(mkdtempSync(join(BUNDLE_ROOT, 'b-')), `${basename(entry, '.ts')}.mjs`);
      await build({
        entryPoints: [entry],
        outfile,
        bundle: true,
        platform: 'node',
        format: 'esm',
        target: 'node20',
        sourcemap: 'inline',
        logLevel: 'error',
        // What esbuild's require() of an external needs in an ESM bundle.
        banner: {
          js: "import { createRequire as __kstreamsCreateRequire } from 'node:module'; const require = __kstreamsCreateRequire(import.meta.url);",
        },
        // npm dependencies stay external, imported by absolute path (the bundle lives far from
        // any node_modules that has them); only the workspace's TypeScript is bundled.
        plugins: [
          {
            name: 'external-npm',
            setup(b) {
              b.onResolve({ filter: /^[^./]/ }, (args) => {
                if (args.namespace === 'lazy-cjs') return { path: args.path, external: true };
                if (args.path.startsWith('@kstreams/')) return undefined;
                if (isBuiltin(args.path)) return { path: args.path, external: true };
                const resolved = createRequire(join(args.resolveDir, 'index.js')).resolve(args.path);
                if (LAZY_CJS.has(args.path)) return { path: resolved, namespace: 'lazy-cjs' };
                return { path: resolved, external: true };
              });
              b.onResolve({ filter: /^\//, namespace: 'lazy-cjs' }, (args) => ({
                path: args.path,
                external: true,
              }));
              b.onLoad({ filter: /.*/, namespace: 'lazy-cjs' }, (args) => ({
                contents: `module.exports = require(${JSON.stringify(args.path)});`,
                loader: 'js',
              }));
            },
          },
        ],
      });
      return outfile;
    })();
    cache.set(entry, out);
  }
  return out;
}

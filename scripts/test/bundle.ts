// Bundles a TypeScript entry point (with the workspace's own packages) into one ESM file, so that
// tests can start it as a child process with plain `node` in a fraction of a second: crash tests
// start many processes, and compiling TypeScript at every start would dominate their time.
import { mkdtempSync } from 'node:fs';
import { createRequire, isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { build } from 'esbuild';

const cache = new Map<string, Promise<string>>();

export function bundleEntry(entry: string): Promise<string> {
  let out = cache.get(entry);
  if (!out) {
    out = (async () => {
      const outfile = join(mkdtempSync(join(tmpdir(), 'kstreams-bundle-')), `${basename(entry, '.ts')}.mjs`);
      await build({
        entryPoints: [entry],
        outfile,
        bundle: true,
        platform: 'node',
        format: 'esm',
        target: 'node20',
        sourcemap: 'inline',
        logLevel: 'error',
        // npm dependencies stay external, imported by absolute path (the bundle lives in a temp
        // dir, far from any node_modules); only the workspace's TypeScript is bundled.
        plugins: [
          {
            name: 'external-npm',
            setup(b) {
              b.onResolve({ filter: /^[^./]/ }, (args) => {
                if (args.path.startsWith('@kstreams/')) return undefined;
                if (isBuiltin(args.path)) return { path: args.path, external: true };
                const resolved = createRequire(join(args.resolveDir, 'index.js')).resolve(args.path);
                return { path: resolved, external: true };
              });
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

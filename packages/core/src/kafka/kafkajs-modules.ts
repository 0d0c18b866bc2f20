// How core replaces one of kafkajs' modules: a loaded module record in Node's module cache, which
// kafkajs' own require() returns without reading the file. It works only before kafkajs loads
// (see producer-grouping.ts); every replacement resolves kafkajs' files from core's location.
import { createRequire } from 'node:module';

/** Node's require, resolving from core's location (where core's kafkajs is). */
export const requireFromCore = createRequire(import.meta.url);

/** The file of one of kafkajs' modules; undefined when kafkajs cannot be resolved from here. */
export function resolveKafkajsModule(path: string): string | undefined {
  try {
    return requireFromCore.resolve(path);
  } catch {
    return undefined;
  }
}

/** The exports the module at `path` has now, if it has been loaded. */
export function loadedExports(path: string): unknown {
  return requireFromCore.cache[path]?.exports;
}

/** Makes `require(path)` return `exports` from now on. */
export function installModule(path: string, exports: unknown): void {
  requireFromCore.cache[path] = {
    id: path,
    path,
    filename: path,
    loaded: true,
    exports,
    children: [],
    paths: [],
  } as unknown as NodeJS.Module;
}

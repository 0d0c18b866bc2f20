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

/** A kafkajs request definition: `protocol({ version })(args)` gives `{ request, response }`. */
export interface RequestDefinition {
  versions: string[];
  protocol(options: { version: number }): ((args: never) => unknown) | undefined;
}

/**
 * Adds versions to kafkajs' definition of a request (`requests.<name>` of
 * `protocol/requests/index.js`, which kafkajs' broker reads at every call, so this works also
 * after kafkajs has loaded). kafkajs asks for min(its highest version, the broker's highest),
 * which can be one that neither defines when a broker is older than the added versions: that falls
 * back to the highest defined below it. `wrap` may change what each version gives. False when
 * core cannot reach kafkajs' files (bundled).
 */
export function installRequestVersions(
  name: string,
  added: Record<number, (args: never) => unknown>,
  wrap?: (make: (args: never) => unknown) => (args: never) => unknown,
): boolean {
  const path = resolveKafkajsModule('kafkajs/src/protocol/requests/index.js');
  if (path === undefined) return false;
  const { requests } = requireFromCore(path) as { requests: Record<string, RequestDefinition> };
  const original = requests[name];
  if (original === undefined) return false;
  const defined = new Map<number, (args: never) => unknown>();
  for (const v of original.versions) defined.set(Number(v), original.protocol({ version: Number(v) })!);
  for (const [v, make] of Object.entries(added)) defined.set(Number(v), make);
  const numbers = [...defined.keys()].sort((a, b) => a - b);
  requests[name] = {
    versions: numbers.map(String),
    protocol: ({ version }) => {
      const best = numbers.filter((v) => v <= version).pop();
      const make = best === undefined ? undefined : defined.get(best);
      return make && wrap ? wrap(make) : make;
    },
  };
  return true;
}

// For the tests that compare core's replacements inside kafkajs with kafkajs' own code.
import { createRequire } from 'node:module';

/** Node's require from here: kafkajs' files as core resolves them. */
export const requireKafkajs = createRequire(import.meta.url);

/**
 * kafkajs' own modules at `paths`, loaded past the replacements that @kstreams/core installs in
 * Node's module cache; the cache is left as it was.
 */
export function originalModules(paths: readonly string[]): unknown[] {
  const { cache } = requireKafkajs;
  const saved = paths.map((p) => [p, cache[p]] as const);
  for (const p of paths) delete cache[p];
  try {
    return paths.map((p) => requireKafkajs(p));
  } finally {
    for (const [p, m] of saved) {
      if (m === undefined) delete cache[p];
      else cache[p] = m;
    }
  }
}

/** A seeded pseudo-random source in [0, 1], so that a failing case can be reproduced. */
export function prng(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    return x / 0x7fffffff;
  };
}

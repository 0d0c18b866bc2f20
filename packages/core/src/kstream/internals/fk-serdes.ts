// The foreign-key join's operators serialize keys and values themselves (for the combined key, the
// hash of the left value and the wrappers' contents), with the tables' serdes or, like Kafka
// Streams' context.keySerde(), the config's defaults, which only the running task knows.
import { type DefaultSerdes, resolveSerde } from '../../processor/internals/serde-resolver.ts';
import type { Serde } from '../../serdes/serde.ts';

interface WithDefaultSerdes {
  defaultSerdes?(): DefaultSerdes;
}

/** `serde`, or the config's default for `part`; neither is a ConfigError naming `where`. */
export function operatorSerde(
  context: object,
  serde: Serde<unknown> | undefined,
  part: 'key' | 'value',
  where: string,
): Serde<unknown> {
  const defaults = (context as WithDefaultSerdes).defaultSerdes?.() ?? {};
  return resolveSerde(defaults, serde, part, where);
}

/** Kafka Streams' decorated pseudo topic: what a serde is told it serializes for. */
export function pseudoTopic(applicationId: string, name: string): string {
  return `${applicationId}-${name}`;
}

// The kstreams word-count topology: the examples package's own when it exists, so that the
// benchmark measures what users run; otherwise the same DSL lines written here.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Serdes, StreamsBuilder, type Topology } from '../../packages/core/src/index.ts';

const EXAMPLE_TOPOLOGY = new URL('../../packages/examples/src/word-count/topology.ts', import.meta.url);

export function benchWordCountTopology(input: string, output: string): Topology {
  const builder = new StreamsBuilder();
  builder
    .stream(input, { keySerde: Serdes.String(), valueSerde: Serdes.String() })
    .flatMapValues((line) =>
      line
        .toLowerCase()
        .split(/\W+/)
        .filter((w) => w.length > 0),
    )
    .groupBy((_key, word) => word, { keySerde: Serdes.String(), valueSerde: Serdes.String() })
    .count()
    .toStream()
    .to(output, { keySerde: Serdes.String(), valueSerde: Serdes.Long() });
  return builder.build();
}

export interface LoadedTopology {
  topology: Topology;
  /** Where the topology came from, for the report. */
  source: string;
}

export async function loadWordCountTopology(input: string, output: string): Promise<LoadedTopology> {
  if (existsSync(fileURLToPath(EXAMPLE_TOPOLOGY))) {
    // bench/ does not reference the examples project, so this import is not type-checked here;
    // the shape is checked at run time instead.
    const mod = (await import(EXAMPLE_TOPOLOGY.href)) as {
      wordCountTopology?: (input: string, output: string) => Topology;
    };
    if (typeof mod.wordCountTopology === 'function') {
      return {
        topology: mod.wordCountTopology(input, output),
        source: 'packages/examples/src/word-count/topology.ts',
      };
    }
  }
  return { topology: benchWordCountTopology(input, output), source: 'bench/word-count/topology.ts' };
}

// `kstreams describe FILE`: loads a module (JavaScript, or TypeScript through tsx) and
// finds a Topology in it: the default export or a named `topology`/`builder`, each a Topology, a
// StreamsBuilder, or a function returning one.
import { StreamsBuilder, Topology } from '@kstreams/core';
import { importUserModule } from './load-module.ts';

export async function loadTopology(file: string): Promise<Topology> {
  const mod = await importUserModule(file);
  for (const name of ['default', 'topology', 'builder']) {
    const t = await asTopology(mod[name]);
    if (t) return t;
  }
  throw new Error(
    `${file} exports no Topology, StreamsBuilder or function returning one (default, topology or builder)`,
  );
}

async function asTopology(v: unknown): Promise<Topology | undefined> {
  const value = typeof v === 'function' && !(v instanceof Topology) ? await (v as () => unknown)() : v;
  if (value instanceof Topology) return value;
  if (value instanceof StreamsBuilder) return value.build();
  return undefined;
}

export async function describeFile(file: string, mermaid: boolean): Promise<string> {
  const d = (await loadTopology(file)).describe();
  return mermaid ? d.toMermaid() : d.toString();
}

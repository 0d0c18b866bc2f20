import type { InternalTopologyBuilder, NodeDef } from './internals/internal-topology-builder.ts';

export interface NodeDescription {
  readonly type: 'source' | 'processor' | 'sink';
  readonly name: string;
  /** Sorted as Kafka Streams sorts them: larger downstream sub-graph first, then by name. */
  readonly predecessors: readonly string[];
  readonly successors: readonly string[];
  /** Source topics (internal topics without the application id prefix). */
  readonly topics?: readonly string[];
  /** Sink topic; undefined for a sink with a topic name extractor. */
  readonly topic?: string | undefined;
  readonly stores?: readonly string[];
}

export interface SubtopologyDescription {
  readonly id: number;
  readonly nodes: readonly NodeDescription[];
}

export interface TopologyDescription {
  readonly subtopologies: readonly SubtopologyDescription[];
  /** The text Kafka Streams' `TopologyDescription.toString()` prints. */
  toString(): string;
  /** A Mermaid flowchart: one subgraph per sub-topology, topics and stores as their own shapes. */
  toMermaid(): string;
}

export function describeTopology(builder: InternalTopologyBuilder): TopologyDescription {
  const subtopologies = builder.subtopologyNodes().map((group) => describeSubtopology(builder, group));
  return {
    subtopologies,
    toString: () => formatText(subtopologies),
    toMermaid: () => formatMermaid(subtopologies),
  };
}

function describeSubtopology(
  builder: InternalTopologyBuilder,
  group: { id: number; nodes: readonly NodeDef[] },
): SubtopologyDescription {
  const children = new Map<string, string[]>();
  for (const node of group.nodes) children.set(node.name, builder.childrenOf(node.name));
  const sizes = new Map<string, number>();
  const sizeOf = (name: string): number => {
    let size = sizes.get(name);
    if (size === undefined) {
      size = 1;
      for (const child of children.get(name) ?? []) size += sizeOf(child);
      sizes.set(name, size);
    }
    return size;
  };
  const byKafkaOrder = (a: string, b: string): number =>
    sizeOf(b) - sizeOf(a) || (a < b ? -1 : a > b ? 1 : 0);

  const nodes: NodeDescription[] = group.nodes.map((node) => {
    const successors = [...(children.get(node.name) ?? [])].sort(byKafkaOrder);
    switch (node.kind) {
      case 'source':
        return { type: 'source', name: node.name, predecessors: [], successors, topics: [...node.topics] };
      case 'processor':
        return {
          type: 'processor',
          name: node.name,
          predecessors: [...node.parents].sort(byKafkaOrder),
          successors,
          stores: [...node.stores],
        };
      default:
        return {
          type: 'sink',
          name: node.name,
          predecessors: [...node.parents].sort(byKafkaOrder),
          successors: [],
          topic: typeof node.topic === 'string' ? node.topic : undefined,
        };
    }
  });
  nodes.sort((a, b) => byKafkaOrder(a.name, b.name));
  return { id: group.id, nodes };
}

function names(list: readonly string[]): string {
  return list.length === 0 ? 'none' : list.join(', ');
}

function formatNode(node: NodeDescription): string {
  switch (node.type) {
    case 'source':
      return `Source: ${node.name} (topics: [${(node.topics ?? []).join(', ')}])\n      --> ${names(node.successors)}`;
    case 'processor':
      return (
        `Processor: ${node.name} (stores: [${(node.stores ?? []).join(', ')}])\n` +
        `      --> ${names(node.successors)}\n      <-- ${names(node.predecessors)}`
      );
    case 'sink':
      return `Sink: ${node.name} (${node.topic === undefined ? 'extractor' : `topic: ${node.topic}`})\n      <-- ${names(node.predecessors)}`;
  }
}

function formatText(subtopologies: readonly SubtopologyDescription[]): string {
  let text = 'Topologies:\n ';
  for (const sub of subtopologies) {
    text += `  Sub-topology: ${sub.id}\n`;
    for (const node of sub.nodes) text += `    ${formatNode(node)}\n`;
    text += '\n';
  }
  return text;
}

function mermaidId(prefix: string, name: string): string {
  return `${prefix}_${name.replace(/[^A-Za-z0-9_]/g, '_')}`;
}

function label(text: string): string {
  return `"${text.replace(/"/g, '#quot;')}"`;
}

function formatMermaid(subtopologies: readonly SubtopologyDescription[]): string {
  const lines = ['flowchart TD'];
  const outside: string[] = [];
  const declared = new Set<string>();
  const declare = (id: string, shape: string): void => {
    if (!declared.has(id)) {
      declared.add(id);
      outside.push(`  ${id}${shape}`);
    }
  };
  for (const sub of subtopologies) {
    lines.push(`  subgraph sub_${sub.id}[${label(`Sub-topology: ${sub.id}`)}]`);
    for (const node of sub.nodes) {
      lines.push(`    ${mermaidId('node', node.name)}[${label(node.name)}]`);
    }
    for (const node of sub.nodes) {
      for (const successor of node.successors) {
        lines.push(`    ${mermaidId('node', node.name)} --> ${mermaidId('node', successor)}`);
      }
    }
    lines.push('  end');
    for (const node of sub.nodes) {
      const id = mermaidId('node', node.name);
      for (const topic of node.topics ?? []) {
        declare(mermaidId('topic', topic), `[/${label(topic)}/]`);
        outside.push(`  ${mermaidId('topic', topic)} --> ${id}`);
      }
      if (node.type === 'sink' && node.topic !== undefined) {
        declare(mermaidId('topic', node.topic), `[/${label(node.topic)}/]`);
        outside.push(`  ${id} --> ${mermaidId('topic', node.topic)}`);
      }
      for (const store of node.stores ?? []) {
        declare(mermaidId('store', store), `[(${label(store)})]`);
        outside.push(`  ${id} --- ${mermaidId('store', store)}`);
      }
    }
  }
  return [...lines, ...outside].join('\n');
}

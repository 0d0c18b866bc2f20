import type { InternalTopologyBuilder, NodeDef } from './internals/internal-topology-builder.ts';
import { javaDescribeOrder, javaHashOrder } from './internals/java-describe-order.ts';

export interface NodeDescription {
  readonly type: 'source' | 'processor' | 'sink';
  readonly name: string;
  /** Sorted as Kafka Streams sorts them: larger downstream sub-graph first, then by name. */
  readonly predecessors: readonly string[];
  readonly successors: readonly string[];
  /** Source topics (internal topics without the application id prefix). */
  readonly topics?: readonly string[];
  /** A pattern source's pattern (Kafka Streams' Source.topicPattern()); its topics are then empty. */
  readonly topicPattern?: RegExp;
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
  const subtopologies = builder.subtopologyNodes().map((group) => describeSubtopology(group));
  return {
    subtopologies,
    toString: () => formatText(subtopologies),
    toMermaid: () => formatMermaid(subtopologies),
  };
}

function describeSubtopology(group: { id: number; nodes: readonly NodeDef[] }): SubtopologyDescription {
  // Kafka Streams' print order, replayed (see java-describe-order.ts).
  const order = javaDescribeOrder(
    group.nodes.map((n) => ({ name: n.name, parents: n.kind === 'source' ? [] : n.parents })),
  );
  const byName = new Map(group.nodes.map((n) => [n.name, n]));
  const nodes: NodeDescription[] = order.nodes.map((name) => {
    const node = byName.get(name)!;
    const successors = order.successors.get(name) ?? [];
    const predecessors = order.predecessors.get(name) ?? [];
    switch (node.kind) {
      case 'source':
        return node.pattern === undefined
          ? { type: 'source', name, predecessors: [], successors, topics: [...node.topics] }
          : { type: 'source', name, predecessors: [], successors, topics: [], topicPattern: node.pattern };
      case 'processor':
        return { type: 'processor', name, predecessors, successors, stores: javaHashOrder([...node.stores]) };
      default:
        return {
          type: 'sink',
          name,
          predecessors,
          successors: [],
          topic: typeof node.topic === 'string' ? node.topic : undefined,
        };
    }
  });
  return { id: group.id, nodes };
}

function names(list: readonly string[]): string {
  return list.length === 0 ? 'none' : list.join(', ');
}

function formatNode(node: NodeDescription): string {
  switch (node.type) {
    case 'source':
      // Java prints a pattern as it is (Pattern.toString()), a topic list in brackets.
      return `Source: ${node.name} (topics: ${node.topicPattern === undefined ? `[${(node.topics ?? []).join(', ')}]` : node.topicPattern.source})\n      --> ${names(node.successors)}`;
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

// The whole-graph checks of the topology builder: parents, store connections, cycles, and that
// every node has a source upstream. Run when the graph is first used, as TopologyError.
import { TopologyError } from '../../errors.ts';

/** The part of the builder's node definitions the checks read (structural: no import back). */
type NodeDef =
  | { readonly kind: 'source'; readonly name: string }
  | {
      readonly kind: 'processor';
      readonly name: string;
      readonly parents: readonly string[];
      readonly stores: readonly string[];
    }
  | { readonly kind: 'sink'; readonly name: string; readonly parents: readonly string[] };

export function checkGraph(
  nodes: ReadonlyMap<string, NodeDef>,
  storeBuilders: ReadonlyMap<string, unknown>,
): void {
  if (nodes.size === 0) throw new TopologyError('The topology is empty: add at least one source');
  for (const node of nodes.values()) {
    if (node.kind === 'source') continue;
    for (const parent of node.parents) {
      const parentNode = nodes.get(parent);
      if (parentNode === undefined) {
        throw new TopologyError(`${kindLabel(node)} ${node.name} has unknown parent ${parent}`);
      }
      if (parentNode.kind === 'sink') {
        throw new TopologyError(
          `${kindLabel(node)} ${node.name} has sink ${parent} as parent; sinks have no children`,
        );
      }
    }
    if (node.kind === 'processor') {
      for (const store of node.stores) {
        if (!storeBuilders.has(store)) {
          throw new TopologyError(
            `Processor ${node.name} is connected to unknown state store '${store}'; add it with addStateStore()`,
          );
        }
      }
    }
  }
  for (const store of storeBuilders.keys()) {
    const used = [...nodes.values()].some((n) => n.kind === 'processor' && n.stores.includes(store));
    if (!used) {
      throw new TopologyError(
        `State store '${store}' is not connected to any processor; connect it or do not add it`,
      );
    }
  }
  checkCycles(nodes);
}

function checkCycles(nodes: ReadonlyMap<string, NodeDef>): void {
  const children = new Map<string, string[]>();
  for (const node of nodes.values()) {
    if (node.kind === 'source') continue;
    for (const parent of node.parents) {
      const list = children.get(parent);
      if (list === undefined) children.set(parent, [node.name]);
      else list.push(node.name);
    }
  }
  // Iterative DFS with colours: grey = on the current path.
  const colour = new Map<string, 'grey' | 'black'>();
  for (const start of nodes.keys()) {
    if (colour.has(start)) continue;
    const stack: Array<{ name: string; next: number }> = [{ name: start, next: 0 }];
    colour.set(start, 'grey');
    while (stack.length > 0) {
      const frame = stack[stack.length - 1]!;
      const kids = children.get(frame.name) ?? [];
      if (frame.next >= kids.length) {
        colour.set(frame.name, 'black');
        stack.pop();
        continue;
      }
      const child = kids[frame.next++]!;
      const c = colour.get(child);
      if (c === 'grey') {
        const path = [...stack.slice(stack.findIndex((f) => f.name === child)).map((f) => f.name), child];
        throw new TopologyError(`The topology has a cycle: ${path.join(' -> ')}`);
      }
      if (c === undefined) {
        colour.set(child, 'grey');
        stack.push({ name: child, next: 0 });
      }
    }
  }
  // A node that no source reaches would never run; with parents checked, only cycles cause it.
  for (const node of nodes.values()) {
    if (node.kind !== 'source' && !reachesSource(nodes, node.name, new Set())) {
      throw new TopologyError(`${kindLabel(node)} ${node.name} has no source upstream`);
    }
  }
}

function reachesSource(nodes: ReadonlyMap<string, NodeDef>, name: string, seen: Set<string>): boolean {
  if (seen.has(name)) return false;
  seen.add(name);
  const node = nodes.get(name)!;
  if (node.kind === 'source') return true;
  return node.parents.some((p) => reachesSource(nodes, p, seen));
}

function kindLabel(node: NodeDef): string {
  return node.kind === 'processor' ? 'Processor' : node.kind === 'sink' ? 'Sink' : 'Source';
}

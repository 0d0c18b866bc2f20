// How the topology builder's graph falls into sub-topologies (the unit of tasks) and what the
// runtime reads of each: kept apart from the builder, which registers nodes and checks names.

/** The part of the builder's node definitions read here (structural: no import back). */
type NodeDef =
  | {
      readonly kind: 'source';
      readonly name: string;
      readonly order: number;
      readonly topics: readonly string[];
    }
  | {
      readonly kind: 'processor';
      readonly name: string;
      readonly order: number;
      readonly parents: readonly string[];
      readonly stores: readonly string[];
    }
  | {
      readonly kind: 'sink';
      readonly name: string;
      readonly order: number;
      readonly parents: readonly string[];
    };

/**
 * Union-find over parent/child edges and shared stores: nodes so connected share a sub-topology.
 * Ids follow the insertion order of each group's first node; global nodes and stores stay out.
 */
export function groupSubtopologies<N extends NodeDef, S>(
  nodes: ReadonlyMap<string, N>,
  storeBuilders: ReadonlyMap<string, S>,
  globalNodes: ReadonlySet<string>,
  globalStores: ReadonlySet<string>,
): Array<{ id: number; nodes: N[]; stores: S[] }> {
  const root = new Map<string, string>();
  const find = (name: string): string => {
    let current = name;
    while (root.get(current) !== current) current = root.get(current)!;
    root.set(name, current);
    return current;
  };
  const union = (a: string, b: string): void => {
    const ra = find(a);
    const rb = find(b);
    if (ra === rb) return;
    // Keep the earliest node as root so ids follow insertion order.
    if (nodes.get(ra)!.order <= nodes.get(rb)!.order) root.set(rb, ra);
    else root.set(ra, rb);
  };
  for (const name of nodes.keys()) root.set(name, name);
  const storeUser = new Map<string, string>();
  for (const node of nodes.values()) {
    if (node.kind === 'source') continue;
    for (const parent of node.parents) union(node.name, parent);
    if (node.kind === 'processor') {
      for (const store of node.stores) {
        if (globalStores.has(store)) continue;
        const other = storeUser.get(store);
        if (other === undefined) storeUser.set(store, node.name);
        else union(node.name, other);
      }
    }
  }

  const byRoot = new Map<string, N[]>();
  for (const node of nodes.values()) {
    if (globalNodes.has(node.name)) continue;
    const r = find(node.name);
    const list = byRoot.get(r);
    if (list === undefined) byRoot.set(r, [node]);
    else list.push(node);
  }
  const ordered = [...byRoot.values()].sort((a, b) => a[0]!.order - b[0]!.order);
  return ordered.map((group, id) => {
    const storeNames: string[] = [];
    for (const node of group) {
      if (node.kind !== 'processor') continue;
      for (const store of node.stores) {
        if (!storeNames.includes(store) && !globalStores.has(store)) storeNames.push(store);
      }
    }
    return { id, nodes: group, stores: storeNames.map((name) => storeBuilders.get(name)!) };
  });
}

/** The topics (raw names) of the sources upstream of these nodes, e.g. a join's inputs. */
export function upstreamSourceTopics(
  nodes: ReadonlyMap<string, NodeDef>,
  names: readonly string[],
): string[] {
  const topics = new Set<string>();
  const seen = new Set<string>();
  const visit = (name: string): void => {
    if (seen.has(name)) return;
    seen.add(name);
    const node = nodes.get(name);
    if (node === undefined) return;
    if (node.kind === 'source') for (const topic of node.topics) topics.add(topic);
    else for (const parent of node.parents) visit(parent);
  };
  for (const name of names) visit(name);
  return [...topics];
}

// The order in which Kafka Streams' TopologyDescription prints a sub-topology's nodes, each node's
// successors and predecessors, and a processor's stores, so that describe() prints the same text.
// Java fills each node's predecessor and successor TreeSets (larger sub-tree first, then by name)
// while it is still adding up the sub-tree sizes, visiting the nodes in HashMap order; a TreeSet
// never re-sorts, so the printed order depends on that visit order (a join's KSTREAM-MERGE lists
// JOINTHIS before JOINOTHER although, finally, both have the same size). This replays it: Java's
// String.hashCode and HashMap iteration order, and java.util.TreeMap's red-black insertion.

/** Java's String.hashCode (UTF-16 code units, int arithmetic). */
function javaHash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
  return h;
}

/** The table size a HashMap reaches after `count` puts from its default of 16 (load factor 0.75). */
function tableSize(count: number): number {
  let capacity = 16;
  while (count > capacity * 0.75) capacity *= 2;
  return capacity;
}

/** Iteration order of a java.util.HashMap/HashSet of strings put in this order (no treeified bins). */
export function javaHashOrder(keys: readonly string[]): string[] {
  const mask = tableSize(keys.length) - 1;
  const bucket = (key: string) => {
    const h = javaHash(key);
    return (h ^ (h >>> 16)) & mask;
  };
  return keys
    .map((key, index) => ({ key, index, bucket: bucket(key) }))
    .sort((a, b) => a.bucket - b.bucket || a.index - b.index)
    .map((e) => e.key);
}

interface JavaNode {
  readonly name: string;
  readonly parents: readonly string[];
  size: number;
  readonly predecessors: TreeSet;
  readonly successors: TreeSet;
}

/** Kafka Streams' NodeComparator: larger sub-tree first, then by name. */
function compareNodes(a: JavaNode, b: JavaNode): number {
  if (a === b) return 0;
  if (a.size !== b.size) return b.size - a.size;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

interface TreeEntry {
  node: JavaNode;
  left: TreeEntry | undefined;
  right: TreeEntry | undefined;
  parent: TreeEntry | undefined;
  red: boolean;
}

/** java.util.TreeSet<Node>(NODE_COMPARATOR): a red-black tree compared at insertion time. */
class TreeSet {
  private root: TreeEntry | undefined;

  add(node: JavaNode): void {
    if (this.root === undefined) {
      this.root = { node, left: undefined, right: undefined, parent: undefined, red: false };
      return;
    }
    let t = this.root;
    for (;;) {
      const cmp = compareNodes(node, t.node);
      if (cmp === 0) return;
      const next = cmp < 0 ? t.left : t.right;
      if (next === undefined) {
        const entry: TreeEntry = { node, left: undefined, right: undefined, parent: t, red: true };
        if (cmp < 0) t.left = entry;
        else t.right = entry;
        this.fixAfterInsertion(entry);
        return;
      }
      t = next;
    }
  }

  values(): JavaNode[] {
    const out: JavaNode[] = [];
    const walk = (e: TreeEntry | undefined): void => {
      if (e === undefined) return;
      walk(e.left);
      out.push(e.node);
      walk(e.right);
    };
    walk(this.root);
    return out;
  }

  // TreeMap.fixAfterInsertion and its rotations (CLR).
  private fixAfterInsertion(inserted: TreeEntry): void {
    let x: TreeEntry | undefined = inserted;
    while (x !== undefined && x !== this.root && x.parent?.red === true) {
      const parent: TreeEntry = x.parent;
      const grand = parent.parent;
      if (grand === undefined) break;
      const parentIsLeft = parent === grand.left;
      const uncle = parentIsLeft ? grand.right : grand.left;
      if (uncle?.red === true) {
        parent.red = false;
        uncle.red = false;
        grand.red = true;
        x = grand;
        continue;
      }
      if (x === (parentIsLeft ? parent.right : parent.left)) {
        x = parent;
        if (parentIsLeft) this.rotateLeft(x);
        else this.rotateRight(x);
      }
      const p = x.parent!;
      const g = p.parent!;
      p.red = false;
      g.red = true;
      if (parentIsLeft) this.rotateRight(g);
      else this.rotateLeft(g);
    }
    this.root!.red = false;
  }

  private rotateLeft(p: TreeEntry): void {
    const r = p.right!;
    p.right = r.left;
    if (r.left !== undefined) r.left.parent = p;
    this.replaceChild(p, r);
    r.left = p;
    p.parent = r;
  }

  private rotateRight(p: TreeEntry): void {
    const l = p.left!;
    p.left = l.right;
    if (l.right !== undefined) l.right.parent = p;
    this.replaceChild(p, l);
    l.right = p;
    p.parent = l;
  }

  private replaceChild(old: TreeEntry, replacement: TreeEntry): void {
    replacement.parent = old.parent;
    if (old.parent === undefined) this.root = replacement;
    else if (old.parent.left === old) old.parent.left = replacement;
    else old.parent.right = replacement;
  }
}

export interface JavaOrder {
  /** The sub-topology's nodes in print order. */
  readonly nodes: readonly string[];
  readonly successors: ReadonlyMap<string, readonly string[]>;
  readonly predecessors: ReadonlyMap<string, readonly string[]>;
}

/**
 * Kafka Streams' describeSubtopology: `parents` of each node in the order they were given (sources
 * have none), nodes in the order they were added.
 */
export function javaDescribeOrder(
  nodes: ReadonlyArray<{ name: string; parents: readonly string[] }>,
): JavaOrder {
  const byName = new Map<string, JavaNode>();
  for (const { name, parents } of nodes) {
    byName.set(name, { name, parents, size: 1, predecessors: new TreeSet(), successors: new TreeSet() });
  }
  const updateSize = (node: JavaNode, delta: number): void => {
    node.size += delta;
    for (const predecessor of node.predecessors.values()) updateSize(predecessor, delta);
  };
  for (const name of javaHashOrder([...byName.keys()])) {
    const node = byName.get(name)!;
    for (const parentName of node.parents) {
      const parent = byName.get(parentName);
      if (parent === undefined) continue;
      node.predecessors.add(parent);
      parent.successors.add(node);
      updateSize(parent, node.size);
    }
  }
  // The sub-topology's own TreeSet is filled after the sizes are final: a plain sort.
  const all = [...byName.values()].sort(compareNodes);
  const names = (set: TreeSet) => set.values().map((n) => n.name);
  return {
    nodes: all.map((n) => n.name),
    successors: new Map(all.map((n) => [n.name, names(n.successors)])),
    predecessors: new Map(all.map((n) => [n.name, names(n.predecessors)])),
  };
}

import { TopologyError } from '../errors.ts';
import { BranchProcessor, PassThroughProcessor } from './internals/kstream-processors.ts';
import { KStream } from './kstream.ts';

/**
 * A branch of `split()`: its name (appended to the split's prefix) and what to do with it.
 * `chain` may transform the branch; if it returns a KStream, that stream is in the result map.
 */
export interface Branched<K, V> {
  name?: string;
  // biome-ignore lint/suspicious/noConfusingVoidType: a chain that only consumes the branch returns nothing
  chain?: (branch: KStream<K, V>) => KStream<K, V> | void;
}

/**
 * The branches of `KStream.split()`. Each record goes to the first branch whose predicate
 * matches, else to the default branch (or nowhere with `noDefaultBranch()`). Branch names are
 * `<prefix><name>`: the prefix is the split's name, else `<split node>-`; unnamed branches are
 * numbered from 1, the default branch is `0`.
 */
export class BranchedKStream<K, V> {
  private readonly splitName: string;
  private readonly prefix: string;
  private readonly branches: Array<{ predicate: (key: unknown, value: unknown) => boolean; child: string }> =
    [];
  private readonly result = new Map<string, KStream<K, V>>();
  private defaultChild: string | undefined;
  private finished = false;

  /** @internal */
  constructor(
    private readonly parent: KStream<K, V>,
    name: string | undefined,
  ) {
    const builder = parent.builder;
    this.splitName = builder.nameOr(name, 'KSTREAM-BRANCH-');
    this.prefix = name ?? `${this.splitName}-`;
    const branches = this.branches;
    builder.addProcessor(this.splitName, () => new BranchProcessor(branches, () => this.defaultChild), [
      parent.nodeName,
    ]);
  }

  branch(predicate: (key: K, value: V) => boolean, branched: Branched<K, V> = {}): this {
    this.requireOpen('branch');
    const child = this.addBranch(branched, String(this.branches.length + 1));
    this.branches.push({ predicate: predicate as (key: unknown, value: unknown) => boolean, child });
    return this;
  }

  defaultBranch(branched: Branched<K, V> = {}): Map<string, KStream<K, V>> {
    this.requireOpen('defaultBranch');
    this.defaultChild = this.addBranch(branched, '0');
    this.finished = true;
    return this.result;
  }

  noDefaultBranch(): Map<string, KStream<K, V>> {
    this.requireOpen('noDefaultBranch');
    this.finished = true;
    return this.result;
  }

  private addBranch(branched: Branched<K, V>, fallbackName: string): string {
    const builder = this.parent.builder;
    const childName = `${this.prefix}${branched.name ?? fallbackName}`;
    builder.addProcessor(childName, () => new PassThroughProcessor(), [this.splitName]);
    const stream = new KStream<K, V>(
      builder,
      childName,
      this.parent.keySerde,
      this.parent.valueSerde,
      this.parent.repartitionRequired,
    );
    if (branched.chain === undefined) {
      this.result.set(childName, stream);
    } else {
      const chained = branched.chain(stream);
      if (chained instanceof KStream) this.result.set(childName, chained);
    }
    return childName;
  }

  private requireOpen(call: string): void {
    if (this.finished) {
      throw new TopologyError(`split ${this.splitName}: ${call}() after defaultBranch()/noDefaultBranch()`);
    }
  }
}

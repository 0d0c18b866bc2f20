// Interactive queries: read the committed contents of a store across this instance's tasks, and
// find which instance owns a key.
import { type StoreSerde, TransactionalBuffer, type TypedKeyValueStore } from '@kstreams/state-store';
import type { ResolvedConfig } from '../config/streams-config.ts';
import { StreamsError } from '../errors.ts';
import type { StreamsAdmin } from '../kafka/admin.ts';
import { partitionForKey } from '../processor/internals/partitioner.ts';
import type { Topology } from '../processor/topology.ts';
import type { Serde } from '../serdes/serde.ts';
import type { StoreBuilder, StoreType } from '../state/store-builder.ts';
import type { TaskRuntime } from './task-runtime.ts';

export interface ReadOnlyKeyValueStore<K, V> {
  get(key: K): V | undefined;
  /** Sorted by key bytes within each task; tasks follow one another. */
  range(from?: K, to?: K): AsyncIterableIterator<{ key: K; value: V }>;
  all(): AsyncIterableIterator<{ key: K; value: V }>;
  approximateNumEntries(): Promise<number>;
}

export interface KeyQueryMetadata {
  /** The partition (and task) of the store that holds the key. */
  partition: number;
  taskId: string;
  /** `host:port` of the instance that runs the task (its `applicationServer`), if known. */
  host?: string;
  /** This instance runs the task. */
  local: boolean;
}

export interface QueryDeps {
  config: ResolvedConfig;
  topology: Topology;
  admin: StreamsAdmin;
  tasks(): TaskRuntime[];
}

function storeSerdes(
  deps: QueryDeps,
  storeName: string,
): { builder: StoreBuilder; keySerde: Serde<unknown>; valueSerde: Serde<unknown> } {
  const builder = deps.topology.internalBuilder.storeBuilder(storeName);
  if (!builder) {
    const names = deps.topology
      .subtopologies(deps.config.applicationId)
      .flatMap((s) => s.stores.map((st) => st.name));
    throw new StreamsError(
      `No state store named '${storeName}' in the topology; its stores are: ${names.join(', ') || 'none'}`,
    );
  }
  const keySerde = (builder.keySerde ?? deps.config.defaultKeySerde) as Serde<unknown> | undefined;
  const valueSerde = (builder.valueSerde ?? deps.config.defaultValueSerde) as Serde<unknown> | undefined;
  if (!keySerde || !valueSerde) {
    throw new StreamsError(
      `State store '${storeName}' has no serdes; give it serdes or set defaultKeySerde/defaultValueSerde`,
    );
  }
  return { builder, keySerde, valueSerde };
}

/**
 * The store processors see (the builder's view) over a fresh, empty buffer on each local task's
 * bytes store: exactly what was committed.
 */
export function committedViews<S>(deps: QueryDeps, storeName: string): () => S[] {
  const { builder, keySerde, valueSerde } = storeSerdes(deps, storeName);
  return () =>
    deps
      .tasks()
      .filter((t) => t.task.storeNames.includes(storeName))
      .map(
        (t) =>
          builder.build(
            new TransactionalBuffer(t.task.storeFor(storeName)),
            keySerde as StoreSerde<unknown>,
            valueSerde as StoreSerde<unknown>,
          ) as unknown as S,
      );
}

const QUERY_TYPE_OF: Record<StoreType, string> = {
  'key-value': 'keyValueStore()',
  window: 'windowStore()',
  session: 'sessionStore()',
};

/** Checks that the store is of the kind asked for; otherwise says which query type fits it. */
export function requireStoreType(deps: QueryDeps, storeName: string, type: StoreType): void {
  const actual = storeSerdes(deps, storeName).builder.type;
  if (actual !== type) {
    throw new StreamsError(
      `State store '${storeName}' is a ${actual} store, not a ${type} store; query it with QueryableStoreTypes.${QUERY_TYPE_OF[actual]}`,
    );
  }
}

export function readOnlyStore<K, V>(deps: QueryDeps, storeName: string): ReadOnlyKeyValueStore<K, V> {
  // The builder makes the same view processors get (plain values, also of a timestamped store).
  const views = committedViews<TypedKeyValueStore<K, V>>(deps, storeName);
  async function* concat(pick: (s: TypedKeyValueStore<K, V>) => AsyncIterableIterator<{ key: K; value: V }>) {
    for (const v of views()) yield* pick(v);
  }
  return {
    get(key: K) {
      for (const v of views()) {
        const found = v.get(key);
        if (found !== undefined) return found;
      }
      return undefined;
    },
    range: (from?: K, to?: K) => concat((v) => v.range(from, to)),
    all: () => concat((v) => v.all()),
    async approximateNumEntries() {
      let n = 0;
      for (const v of views()) n += await v.approximateNumEntries();
      return n;
    },
  };
}

const MEMBERS_TTL_MS = 1_000;

export class KeyQueryResolver {
  private members?: { at: number; list: Awaited<ReturnType<StreamsAdmin['groupMembers']>> };
  private widths = new Map<number, number>();

  constructor(private readonly deps: QueryDeps) {}

  async metadataForKey<K>(storeName: string, key: K, keySerde: Serde<K>): Promise<KeyQueryMetadata> {
    storeSerdes(this.deps, storeName);
    const sub = this.deps.topology
      .subtopologies(this.deps.config.applicationId)
      .find((s) => s.stores.some((st) => st.name === storeName))!;
    let width = this.widths.get(sub.id);
    if (width === undefined) {
      const counts = await this.deps.admin.partitionCounts(sub.sourceTopics);
      width = Math.max(0, ...counts.values());
      if (width === 0) throw new StreamsError(`The source topics of store '${storeName}' do not exist yet`);
      this.widths.set(sub.id, width);
    }
    const partition = partitionForKey(keySerde.serialize(key), width);
    const taskId = `${sub.id}_${partition}`;
    const local = this.deps.tasks().some((t) => t.id === taskId);
    if (local) return { partition, taskId, local, host: this.deps.config.applicationServer };
    if (!this.members || Date.now() - this.members.at > MEMBERS_TTL_MS) {
      this.members = {
        at: Date.now(),
        list: await this.deps.admin.groupMembers(this.deps.config.applicationId),
      };
    }
    const owner = this.members.list.find((m) =>
      sub.sourceTopics.some((t) => (m.assignment[t] ?? []).includes(partition)),
    );
    return { partition, taskId, local: false, host: owner?.applicationServer };
  }
}

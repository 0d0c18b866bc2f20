// Interactive queries: read the committed contents of a store across this instance's tasks, and
// find which instance owns a key.
import {
  type KeyValueBytesStore,
  type SessionStore,
  type StoreSerde,
  TransactionalBuffer,
  type TypedKeyValueStore,
} from '@kstreams/state-store';
import type { ResolvedConfig } from '../config/streams-config.ts';
import { StreamsError } from '../errors.ts';
import type { GroupMemberDescription, StreamsAdmin } from '../kafka/admin.ts';
import type { Topology } from '../processor/topology.ts';
import type { Serde } from '../serdes/serde.ts';
import { type ReadOnlySessionStore, readOnlySessionStore } from '../state/session-store.ts';
import type { StateStore } from '../state/state-store.ts';
import type { StoreBuilder, StoreType } from '../state/store-builder.ts';
import type { ReadOnlyWindowStore, WindowStoreEntry } from '../state/window-store.ts';
import { taskHosts } from './key-hosts.ts';
import { type KeyRouting, partitionOfKey } from './key-partition.ts';
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
  /**
   * `host:port` of the instances with a standby of the task (Kafka Streams' standbyHosts): they
   * answer a query with `enableStaleStores`, possibly behind the active.
   */
  standbyHosts: string[];
  /** This instance runs the task. */
  local: boolean;
}

/** Kafka Streams' StoreQueryParameters, for `KafkaStreams.store`. */
export interface StoreQueryParameters {
  /**
   * Kafka Streams' enableStaleStores(): also answer from this instance's standby copies of the
   * store, which follow the active's changelog and may lag behind it (read_committed: never
   * uncommitted data). Without it only the tasks this instance runs as active answer.
   */
  enableStaleStores?: boolean;
}

/** A standby task as interactive queries see it (runtime/standby-task.ts). */
export interface QueryableStandby {
  readonly id: string;
  readonly state: 'created' | 'running' | 'closed';
  readonly storeNames: readonly string[];
  storeFor(storeName: string): KeyValueBytesStore;
}

export interface QueryDeps {
  config: ResolvedConfig;
  topology: Topology;
  admin: StreamsAdmin;
  tasks(): TaskRuntime[];
  /** The standby tasks of this instance (numStandbyReplicas > 0). */
  standbyTasks?(): QueryableStandby[];
  /** A global store (GlobalKTable), held whole by this instance. */
  globalStore?(storeName: string): StateStore | undefined;
}

export function storeSerdes(
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

/** Which kind of store a query expects (Kafka Streams' QueryableStoreType). */
export interface QueryableStoreType<S> {
  readonly kind: StoreType;
  /** Carries the store type S for the compiler only. */
  readonly view?: (store: S) => void;
}

/** Kafka Streams' QueryableStoreTypes: what `KafkaStreams.store(name, type)` gives. */
export const QueryableStoreTypes = {
  keyValueStore<K, V>(): QueryableStoreType<ReadOnlyKeyValueStore<K, V>> {
    return { kind: 'key-value' };
  },
  windowStore<K, V>(): QueryableStoreType<ReadOnlyWindowStore<K, V>> {
    return { kind: 'window' };
  },
  /** Sessions by key: `fetch(key)`, `findSessions(key, earliestSessionEndTime, latestSessionStartTime)`. */
  sessionStore<K, V>(): QueryableStoreType<ReadOnlySessionStore<K, V>> {
    return { kind: 'session' };
  },
};

const QUERY_TYPE_OF: Record<Exclude<StoreType, 'versioned'>, string> = {
  'key-value': 'keyValueStore()',
  window: 'windowStore()',
  session: 'sessionStore()',
};

/**
 * The store's typed view in each running task that has it. A fresh, empty buffer over the task's
 * bytes store reads exactly what was committed; the builder makes the same view processors get
 * (plain values, also of a timestamped store).
 */
function taskViews<S>(
  deps: QueryDeps,
  storeName: string,
  kind: QueryableStoreType<S>['kind'],
  parameters: StoreQueryParameters = {},
): () => S[] {
  const { builder, keySerde, valueSerde } = storeSerdes(deps, storeName);
  if (builder.type === 'versioned') {
    // Kafka Streams too answers versioned stores through IQv2's VersionedKeyQuery only.
    throw new StreamsError(
      `State store '${storeName}' is a versioned store: QueryableStoreTypes cannot read it (as in Kafka Streams, where only IQv2's VersionedKeyQuery can)`,
    );
  }
  if (builder.type !== kind) {
    const ask = `QueryableStoreTypes.${QUERY_TYPE_OF[builder.type]}`;
    throw new StreamsError(
      `State store '${storeName}' is a ${builder.type} store, not a ${kind} store; query it with ${ask}`,
    );
  }
  if (deps.topology.internalBuilder.isGlobalStore(storeName)) {
    // Every instance holds all of a global store; the global thread's writes are not transactional.
    return () => {
      const store = deps.globalStore?.(storeName);
      return store === undefined ? [] : [store as unknown as S];
    };
  }
  const view = (bytes: KeyValueBytesStore) =>
    builder.build(
      new TransactionalBuffer(bytes),
      keySerde as StoreSerde<unknown>,
      valueSerde as StoreSerde<unknown>,
    ) as unknown as S;
  return () => {
    const actives = deps
      .tasks()
      .filter((t) => t.task.storeNames.includes(storeName))
      .map((t) => view(t.task.storeFor(storeName)));
    if (parameters.enableStaleStores !== true) return actives;
    const standbys = (deps.standbyTasks?.() ?? [])
      .filter((t) => t.state === 'running' && t.storeNames.includes(storeName))
      .map((t) => view(t.storeFor(storeName)));
    return [...actives, ...standbys];
  };
}

async function* concat<S, T>(views: S[], pick: (s: S) => AsyncIterableIterator<T>): AsyncIterableIterator<T> {
  for (const v of views) yield* pick(v);
}

export function readOnlyStore<K, V>(
  deps: QueryDeps,
  storeName: string,
  parameters?: StoreQueryParameters,
): ReadOnlyKeyValueStore<K, V> {
  const views = taskViews<TypedKeyValueStore<K, V>>(deps, storeName, 'key-value', parameters);
  return {
    get(key: K) {
      for (const v of views()) {
        const found = v.get(key);
        if (found !== undefined) return found;
      }
      return undefined;
    },
    range: (from?: K, to?: K) => concat(views(), (v) => v.range(from, to)),
    all: () => concat(views(), (v) => v.all()),
    async approximateNumEntries() {
      let n = 0;
      for (const v of views()) n += await v.approximateNumEntries();
      return n;
    },
  };
}

/** A window store across this instance's tasks: a key's windows live in one task, so order holds per key. */
export function readOnlyWindowStore<K, V>(
  deps: QueryDeps,
  storeName: string,
  parameters?: StoreQueryParameters,
): ReadOnlyWindowStore<K, V> {
  const views = taskViews<ReadOnlyWindowStore<K, V>>(deps, storeName, 'window', parameters);
  function fetch(key: K, windowStart: number): V | undefined;
  function fetch(key: K, timeFrom: number, timeTo: number): AsyncIterableIterator<WindowStoreEntry<V>>;
  function fetch(
    key: K,
    from: number,
    to?: number,
  ): V | undefined | AsyncIterableIterator<WindowStoreEntry<V>> {
    if (to !== undefined) return concat(views(), (v) => v.fetch(key, from, to));
    for (const v of views()) {
      const found = v.fetch(key, from);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  const { builder } = storeSerdes(deps, storeName);
  const { windowSizeMs } = builder as StoreBuilder & { windowSizeMs?: number };
  return {
    name: storeName,
    ...(windowSizeMs !== undefined && { windowSizeMs }),
    fetch,
    backwardFetch: (key, from, to) => concat(views(), (v) => v.backwardFetch(key, from, to)),
    fetchAll: (from, to) => concat(views(), (v) => v.fetchAll(from, to)),
    all: () => concat(views(), (v) => v.all()),
  };
}

/** A session store across this instance's tasks: a key's sessions live in one task. */
export function readOnlySessionStoreAcrossTasks<K, V>(
  deps: QueryDeps,
  storeName: string,
  parameters?: StoreQueryParameters,
): ReadOnlySessionStore<K, V> {
  return readOnlySessionStore(
    storeName,
    taskViews<SessionStore<K, V>>(deps, storeName, 'session', parameters),
  );
}

const MEMBERS_TTL_MS = 1_000;

export class KeyQueryResolver {
  private members?: { at: number; list: GroupMemberDescription[] };
  private widths = new Map<number, { topic: string; width: number }>();

  constructor(private readonly deps: QueryDeps) {}

  private async groupMembers(): Promise<GroupMemberDescription[]> {
    if (!this.members || Date.now() - this.members.at > MEMBERS_TTL_MS) {
      this.members = {
        at: Date.now(),
        list: await this.deps.admin.groupMembers(this.deps.config.applicationId),
      };
    }
    return this.members.list;
  }

  async metadataForKey<K>(storeName: string, key: K, routing: KeyRouting<K>): Promise<KeyQueryMetadata> {
    const { sub, widest } = await this.subtopologyOf(storeName);
    const partition = partitionOfKey(key, routing, widest.topic, widest.width, storeName);
    return this.ownerOf(sub, partition);
  }

  /** Every partition of the store, and who runs it (IQv2 through the HTTP plugin asks each owner). */
  async metadataForPartitions(storeName: string): Promise<KeyQueryMetadata[]> {
    const { sub, widest } = await this.subtopologyOf(storeName);
    const all: KeyQueryMetadata[] = [];
    for (let partition = 0; partition < widest.width; partition++)
      all.push(await this.ownerOf(sub, partition));
    return all;
  }

  private async subtopologyOf(storeName: string) {
    storeSerdes(this.deps, storeName);
    const sub = this.deps.topology
      .subtopologies(this.deps.config.applicationId)
      .find((s) => s.stores.some((st) => st.name === storeName))!;
    let widest = this.widths.get(sub.id);
    if (widest === undefined) {
      const counts = await this.deps.admin.partitionCounts(sub.sourceTopics);
      // Kafka Streams' SourceTopicsInfo: the partitioner is told the topic with the most partitions.
      widest = { topic: '', width: 0 };
      for (const [topic, width] of counts) if (width > widest.width) widest = { topic, width };
      if (widest.width === 0)
        throw new StreamsError(`The source topics of store '${storeName}' do not exist yet`);
      this.widths.set(sub.id, widest);
    }
    return { sub, widest };
  }

  private async ownerOf(
    sub: { id: number; sourceTopics: string[] },
    partition: number,
  ): Promise<KeyQueryMetadata> {
    const taskId = `${sub.id}_${partition}`;
    const local = this.deps.tasks().some((t) => t.id === taskId);
    const standbyHere = (this.deps.standbyTasks?.() ?? []).some((t) => t.id === taskId);
    const here = { active: local, standby: standbyHere, host: this.deps.config.applicationServer };
    let members: GroupMemberDescription[];
    try {
      members = await this.groupMembers();
    } catch (error) {
      // The local active answers without the group's view; only its standbys' hosts are unknown.
      if (!local) throw error;
      members = [];
    }
    const task = { id: taskId, partition, sourceTopics: sub.sourceTopics };
    return { partition, taskId, local, ...taskHosts(members, task, here) };
  }
}

import {
  type CheckpointEntry,
  decodeHeaders,
  encodeAggregationWithHeaders,
  encodeValueTimestampHeaders,
  type KeyValueBytesStore,
  readCheckpoint,
  splitAggregationWithHeaders,
  splitValueTimestampHeaders,
  type TopicPartition,
  TransactionalBuffer,
  type TransactionalBufferOptions,
  TypedVersionedKeyValueStore,
  type UncommittedBytesBudget,
  VersionedRestoreTarget,
  writeCheckpoint,
} from '@kstreams/state-store';
import { StreamsError } from '../../errors.ts';
import type { Position } from '../../query/position.ts';
import { StorePosition } from '../../query/store-position.ts';
import type { StateStore } from '../../state/state-store.ts';
import type { StoreBuilder } from '../../state/store-builder.ts';
import { rawValueOf, timestampOf, withTimestamp } from '../../state/value-and-timestamp.ts';
import { type FetchedHeaders, fromStoreHeaders, headersPart } from '../../state/value-timestamp-headers.ts';
import { isVersionedBuilder, versionedRestoreValue } from '../../state/versioned-store-builder.ts';
import { type AnySerde, changelogTopicName } from './internal-topology-builder.ts';
import { topicPartitionKey } from './records.ts';
import { type DefaultSerdes, resolveSerde } from './serde-resolver.ts';
import { TombstoneContexts, type WriteRecord } from './tombstone-contexts.ts';
import { bindToTopic, unwrapStoreSerde } from './topic-bound-serde.ts';

export interface ProcessorStateManagerOptions extends DefaultSerdes {
  /** `<subtopology>_<partition>`, for the store factory and error messages. */
  taskId: string;
  applicationId: string;
  /** The task's partition: also the partition of each of its changelogs. */
  partition: number;
  /** The bytes store of each store; `builder` says its kind (a window store is time-segmented). */
  storeFactory: (storeName: string, taskId: string, builder: StoreBuilder) => KeyValueBytesStore;
  /** Undefined: no checkpoint written or read. */
  checkpointFile?: string | undefined;
  maxUncommittedBytes?: number | undefined;
  /** One bound for the buffers of every task of the instance; replaces maxUncommittedBytes. */
  uncommittedBytes?: UncommittedBytesBudget | undefined;
  /** Builds a store's buffer (the runtime's metered one at debug level); default: a plain one. */
  newBuffer?: (
    storeName: string,
    bytes: KeyValueBytesStore,
    options: TransactionalBufferOptions,
  ) => TransactionalBuffer;
  /** A buffer grew past maxUncommittedBytes. */
  onCommitRequested: () => void;
  /** The topic a store's serdes see, if not its changelog's name (a global store's: its source topic). */
  serdeTopic?: (storeName: string) => string | undefined;
  /** The input record being processed: each store's position follows the records written into it. */
  currentRecord?: () => WriteRecord | undefined;
}

export interface ChangelogPartition extends TopicPartition {
  storeName: string;
}

/** A pending store change addressed to its changelog partition (value null: a tombstone). */
export interface ChangelogChange {
  topic: string;
  partition: number;
  key: Buffer;
  value: Buffer | null;
  /** The value's own timestamp (timestamped stores); otherwise the commit's time is used. */
  timestamp?: number;
  headers?: { readonly [name: string]: Buffer };
}

/** A changelog record as the restore reads it. */
export interface ChangelogMessage {
  key: Buffer | null;
  value: Buffer | null;
  timestamp: number;
  /** The record's headers as fetched (absent: none); a headers-aware store keeps them. */
  headers?: FetchedHeaders;
}

interface RegisteredStore {
  readonly builder: StoreBuilder;
  readonly changelog: TopicPartition | null;
  readonly keySerde: AnySerde;
  readonly valueSerde: AnySerde;
  bytes?: KeyValueBytesStore;
  buffer?: TransactionalBuffer;
  store?: StateStore;
  readonly position: StorePosition;
  /** A headers-aware store's deletes since the last commit, with their records (Kafka Streams 4.4). */
  readonly tombstones?: TombstoneContexts;
}

/**
 * Kafka Streams' ProcessorStateManager: the stores of one task. Each store of any kind registers
 * through its StoreBuilder and lives behind a transactional buffer, so that the task only says when
 * to commit or roll back: writes reach the bytes store only after Kafka accepted the commit, and the
 * checkpoint says how far each changelog was applied.
 */
export class ProcessorStateManager {
  readonly changelogPartitions: ChangelogPartition[] = [];
  private readonly stores = new Map<string, RegisteredStore>();
  private readonly checkpoint = new Map<string, CheckpointEntry>();
  private open = false;

  constructor(private readonly options: ProcessorStateManagerOptions) {}

  /**
   * Before initialize(). The serdes are resolved here, so that a missing one is a ConfigError when
   * the task is created rather than when a processor first touches the store.
   */
  register(builder: StoreBuilder): void {
    const name = builder.name;
    const changelog = builder.loggingEnabled
      ? { topic: changelogTopicName(this.options.applicationId, name), partition: this.options.partition }
      : null;
    if (changelog !== null) this.changelogPartitions.push({ ...changelog, storeName: name });
    const where = `state store '${name}'`;
    // Kafka Streams' store serdes see the changelog topic, with logging or without.
    const topic = this.options.serdeTopic?.(name) ?? changelogTopicName(this.options.applicationId, name);
    const resolve = (serde: unknown, part: 'key' | 'value') =>
      bindToTopic(resolveSerde(this.options, serde as AnySerde | undefined, part, where), topic);
    const current = this.options.currentRecord ?? (() => undefined);
    this.stores.set(name, {
      builder,
      changelog,
      position: new StorePosition(current),
      ...(builder.headers === true && changelog !== null
        ? { tombstones: new TombstoneContexts(current) }
        : {}),
      keySerde: resolve(builder.keySerde, 'key'),
      valueSerde: resolve(builder.valueSerde, 'value'),
    });
  }

  get storeNames(): string[] {
    return [...this.stores.keys()];
  }

  get size(): number {
    return this.stores.size;
  }

  get initialized(): boolean {
    return this.open;
  }

  /**
   * Opens every store behind its buffer; returns the checkpoint read (or `[]`), for the restore.
   * The task's committed input offsets (none for a new task) seed the stores' positions.
   */
  async initialize(committedOffsets: readonly CheckpointEntry[] = []): Promise<CheckpointEntry[]> {
    const { taskId, storeFactory, maxUncommittedBytes, uncommittedBytes, checkpointFile } = this.options;
    if (this.open) throw new StreamsError(`Task ${taskId}: stores are already initialized`);
    for (const [name, entry] of this.stores) {
      const bytes = storeFactory(name, taskId, entry.builder);
      await bytes.open();
      entry.bytes = bytes;
      const bufferOptions = {
        ...(maxUncommittedBytes === undefined ? {} : { maxUncommittedBytes }),
        ...(uncommittedBytes === undefined ? {} : { budget: uncommittedBytes }),
        onCommitRequested: this.options.onCommitRequested,
        onWrite: (key: Buffer, value: Buffer | null) => {
          entry.position.written();
          entry.tombstones?.written(key, value);
        },
      };
      entry.buffer =
        this.options.newBuffer?.(name, bytes, bufferOptions) ?? new TransactionalBuffer(bytes, bufferOptions);
      entry.store = entry.builder.build(entry.buffer, entry.keySerde, entry.valueSerde);
    }
    this.open = true;
    for (const entry of this.stores.values()) entry.position.seed(committedOffsets);
    const entries = checkpointFile === undefined ? [] : await readCheckpoint(checkpointFile);
    for (const entry of entries)
      this.checkpoint.set(topicPartitionKey(entry.topic, entry.partition), { ...entry });
    return entries;
  }

  /** The raw bytes store, for the changelog restore (bypasses the buffer). */
  bytesStore(storeName: string): KeyValueBytesStore {
    const entry = this.entry(storeName);
    if (entry.bytes === undefined) {
      throw new StreamsError(
        `Task ${this.options.taskId}: call initializeStores() before storeFor('${storeName}')`,
      );
    }
    // A versioned store restores by replaying puts (see restoreConverter).
    const { builder } = entry;
    return isVersionedBuilder(builder)
      ? new VersionedRestoreTarget(entry.bytes, builder.storeOptions())
      : entry.bytes;
  }

  /**
   * The store's bytes as committed (a versioned store's too, unlike bytesStore) and their position
   * (Kafka Streams' store position, KIP-796): what interactive queries read.
   */
  committedState(storeName: string): { bytes: KeyValueBytesStore; position: Position } {
    const entry = this.entry(storeName);
    if (entry.bytes === undefined)
      throw new StreamsError(
        `Task ${this.options.taskId}: state store '${storeName}' is not initialized yet`,
      );
    return { bytes: entry.bytes, position: entry.position.get() };
  }

  /**
   * How a changelog record of the store becomes the bytes to restore: a timestamped store puts the
   * record's timestamp back in front of the value.
   */
  restoreConverter(storeName: string): (message: ChangelogMessage) => ChangelogMessage {
    const { builder } = this.entry(storeName);
    if (isVersionedBuilder(builder)) return versionedRestoreValue;
    if (builder.headers === true)
      return builder.type === 'session' ? sessionHeadersRestoreValue : headersRestoreValue;
    if (builder.timestamped !== true) return (message) => message;
    return (message) =>
      message.value === null
        ? message
        : { ...message, value: withTimestamp(message.timestamp, message.value) };
  }

  /**
   * What the restore awaits before applying a batch of the store's changelog records: the
   * `prepare` of its serdes (a registry serde fetching a schema id it has not seen, say one an
   * older version of the app wrote), so that later reads of the store deserialize synchronously.
   * Undefined when neither serde has `prepare`.
   */
  restorePreparer(storeName: string): ((messages: readonly ChangelogMessage[]) => Promise<void>) | undefined {
    const { keySerde, builder } = this.entry(storeName);
    // A timestamped store's changelog holds the plain value: the inner serde's bytes.
    const valueSerde = unwrapStoreSerde(this.entry(storeName).valueSerde);
    if (keySerde.prepare === undefined && valueSerde.prepare === undefined) return undefined;
    const parts = builder.changelogSerdeBytes;
    return async (messages) => {
      const pending: Promise<void>[] = [];
      const add = (p: Promise<void> | undefined) => p !== undefined && pending.push(p);
      for (const { key, value } of messages) {
        if (key !== null) add(keySerde.prepare?.(parts ? parts.key(key) : key));
        if (value === null) continue;
        if (parts === undefined) add(valueSerde.prepare?.(value));
        else for (const item of parts.values(value)) add(valueSerde.prepare?.(item));
      }
      if (pending.length > 0) await Promise.all(pending);
    };
  }

  /** The store processors see (reads go through the transactional buffer). */
  store(storeName: string): StateStore {
    const entry = this.entry(storeName);
    if (entry.store === undefined) {
      throw new StreamsError(
        `Task ${this.options.taskId}: state store '${storeName}' is not initialized yet`,
      );
    }
    return entry.store;
  }

  private entry(storeName: string): RegisteredStore {
    const entry = this.stores.get(storeName);
    if (entry === undefined)
      throw new StreamsError(`Task ${this.options.taskId} has no state store '${storeName}'`);
    return entry;
  }

  /** Pending changes of the logged stores (last value per key); does not clear. */
  changelogRecords(): ChangelogChange[] {
    return [...this.changelogChanges()];
  }

  /**
   * The same, one at a time: a commit's changes (a second of a windowed aggregation's writes, say)
   * are encoded as they come instead of waiting in an array, which outlived V8's young generation.
   */
  *changelogChanges(): IterableIterator<ChangelogChange> {
    for (const entry of this.stores.values()) {
      if (entry.changelog === null || entry.buffer === undefined) continue;
      const { topic, partition } = entry.changelog;
      const timestamped = entry.builder.timestamped === true;
      const withHeaders = entry.builder.headers === true;
      const session = entry.builder.type === 'session';
      const headers = entry.builder.changelogHeaders;
      if (entry.store instanceof TypedVersionedKeyValueStore) {
        // Kafka Streams' versioned changelog: every put, its timestamp as the record's.
        for (const { key, value, timestamp } of entry.store.pendingChanges()) {
          yield { topic, partition, key, value, timestamp };
        }
        continue;
      }
      for (const { key, value } of entry.buffer.eachPendingChange()) {
        if (withHeaders && value !== null && session) {
          yield { topic, partition, key, ...sessionHeadersChangelogValue(value) };
        } else if (withHeaders && value !== null) {
          yield { topic, partition, key, ...headersChangelogValue(value) };
        } else if (timestamped && value !== null) {
          // Kafka Streams' changelog format: the plain value, its timestamp as the record's.
          yield { topic, partition, key, value: rawValueOf(value), timestamp: timestampOf(value) };
        } else if (headers !== undefined && value !== null) {
          yield { topic, partition, key, value, headers };
        } else {
          // A headers-aware store's tombstone: the deleting record's timestamp and headers.
          const tombstone = value === null ? entry.tombstones?.of(key) : undefined;
          yield { topic, partition, key, value, ...tombstone };
        }
      }
    }
  }

  /**
   * After Kafka accepted the commit: the buffers go to the stores, then the checkpoint, merged with
   * the entries read or written before (a changelog without new records keeps its offset).
   */
  async commit(changelogOffsets: readonly CheckpointEntry[]): Promise<void> {
    for (const entry of this.stores.values()) {
      await entry.buffer?.commit();
      entry.position.committed();
      entry.tombstones?.clear();
      if (entry.store instanceof TypedVersionedKeyValueStore) await this.committedVersioned(entry);
    }
    for (const { topic, partition, offset } of changelogOffsets) {
      this.checkpoint.set(topicPartitionKey(topic, partition), { topic, partition, offset });
    }
    const file = this.options.checkpointFile;
    if (file !== undefined && this.checkpoint.size > 0)
      await writeCheckpoint(file, [...this.checkpoint.values()]);
  }

  /**
   * A versioned store forgets the puts its changelog got, and drops expired histories (Kafka
   * Streams' segment cleanup) while nothing is buffered, so that only committed state is cleaned.
   */
  private async committedVersioned(entry: RegisteredStore): Promise<void> {
    const store = entry.store as TypedVersionedKeyValueStore<unknown, unknown>;
    store.committed();
    if (entry.bytes !== undefined && entry.buffer?.hasPendingChanges() === false)
      await store.cleanup(entry.bytes);
  }

  /** Drops every buffered write. */
  rollback(): void {
    for (const entry of this.stores.values()) {
      entry.buffer?.rollback();
      entry.position.rolledBack();
      entry.tombstones?.clear();
    }
  }

  /** Drops the buffers and closes the stores; returns the first error, after trying every store. */
  async close(): Promise<unknown> {
    let firstError: unknown;
    for (const entry of this.stores.values()) {
      entry.buffer?.rollback();
      try {
        await entry.bytes?.close();
      } catch (error) {
        firstError ??= error;
      }
    }
    return firstError;
  }
}

/**
 * A headers-aware store's restore (Kafka Streams' RecordConverters.rawValueToHeadersValue): the
 * record's headers and timestamp go back in front of the plain value.
 */
function headersRestoreValue(message: ChangelogMessage): ChangelogMessage {
  if (message.value === null) return message;
  return {
    ...message,
    value: encodeValueTimestampHeaders(headersPart(message.headers), message.timestamp, message.value),
  };
}

/**
 * A headers-aware store's changelog record (Kafka Streams' ChangeLoggingTimestampedKeyValueBytesStoreWithHeaders):
 * the plain value, the stored timestamp and headers as the record's.
 */
function headersChangelogValue(bytes: Buffer): Pick<ChangelogChange, 'value' | 'timestamp' | 'headers'> {
  const parts = splitValueTimestampHeaders(bytes);
  const value = { value: parts.value, timestamp: parts.timestamp };
  if (parts.headers.length === 0) return value;
  return { ...value, headers: fromStoreHeaders(decodeHeaders(parts.headers)) as ChangelogChange['headers'] };
}

/**
 * A headers-aware session store's restore: the record's headers go back in front of the
 * aggregation (Kafka Streams 4.4's AggregationWithHeaders; a session store keeps no timestamp).
 */
function sessionHeadersRestoreValue(message: ChangelogMessage): ChangelogMessage {
  if (message.value === null) return message;
  return { ...message, value: encodeAggregationWithHeaders(headersPart(message.headers), message.value) };
}

/**
 * A headers-aware session store's changelog record (Kafka Streams 4.4's
 * ChangeLoggingSessionBytesStoreWithHeaders): the plain aggregation, the stored headers as the record's.
 */
function sessionHeadersChangelogValue(bytes: Buffer): Pick<ChangelogChange, 'value' | 'headers'> {
  const { headers, aggregation } = splitAggregationWithHeaders(bytes);
  if (headers.length === 0) return { value: aggregation };
  return {
    value: aggregation,
    headers: fromStoreHeaders(decodeHeaders(headers)) as ChangelogChange['headers'],
  };
}

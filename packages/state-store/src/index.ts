/**
 * The state stores under kstreams: LevelDB and in-memory, the transactional write buffer, changelog
 * records, checkpoints, restore, the segmented window and session stores, versioned stores, and the
 * value format of headers-aware stores.
 *
 * @module @kstreams/state-store
 */
export {
  ENTRY_OVERHEAD_BYTES,
  TransactionalBuffer,
  type TransactionalBufferOptions,
  UncommittedBytesBudget,
} from './buffer/transactional-buffer.ts';
export { fromChangelogMessage, toChangelogMessage } from './changelog/changelog-message.ts';
export { type StateRestoreListener, StoreRestorer } from './changelog/store-restorer.ts';
export { type CheckpointEntry, readCheckpoint, writeCheckpoint } from './checkpoint/checkpoint-file.ts';
export {
  InvalidChangelogRecordError,
  InvalidStoreArgumentError,
  StateStoreError,
  StoreDiskFullError,
  StoreFormatError,
  StoreLockedError,
  StoreNotOpenError,
  StoreRestoreError,
} from './errors.ts';
export {
  decodeHeaders,
  encodeAggregationWithHeaders,
  encodeHeaders,
  encodeValueTimestampHeaders,
  type StoreHeader,
  splitAggregationWithHeaders,
  splitValueTimestampHeaders,
  type ValueTimestampHeadersBytes,
} from './headers/value-timestamp-headers-format.ts';
export { readLong, writeLong } from './long-bytes.ts';
export { InMemoryKeyValueStore } from './store/in-memory-key-value-store.ts';
export { LevelKeyValueStore, type LevelKeyValueStoreOptions } from './store/level-key-value-store.ts';
export { type KeyValueStore, type StoreSerde, TypedKeyValueStore } from './typed/typed-key-value-store.ts';
export type {
  ChangelogRecord,
  KeyValue,
  KeyValueBytesStore,
  LastWriteTracking,
  TopicPartition,
} from './types.ts';
export {
  TypedVersionedKeyValueStore,
  type VersionedKeyValueStore,
  type VersionedRecord,
} from './versioned/typed-versioned-store.ts';
export {
  defaultVersionedSegmentIntervalMs,
  PUT_RETURN_CODE_NOT_PUT,
  PUT_RETURN_CODE_VALID_TO_UNDEFINED,
  type VersionedBackend,
  type VersionedBytesRecord,
  VersionedBytesStore,
  type VersionedChange,
  type VersionedStoreOptions,
} from './versioned/versioned-bytes-store.ts';
export { encodeRestoreValue } from './versioned/versioned-format.ts';
export { VersionedRestoreTarget } from './versioned/versioned-restore.ts';
export { SessionKeySchema, WindowKeySchema } from './window/key-schema.ts';
export {
  defaultSegmentIntervalMs,
  SegmentedBytesStore,
  type SegmentedBytesStoreOptions,
  type SegmentInfo,
} from './window/segmented-bytes-store.ts';
export {
  type SessionEntry,
  type SessionStore,
  type SessionWindowedKey,
  TypedSessionStore,
} from './window/typed-session-store.ts';
export {
  inMemorySessionBytesStore,
  inMemoryWindowBytesStore,
  type LevelSegmentedStoreOptions,
  levelSessionBytesStore,
  levelWindowBytesStore,
  type SegmentedStoreOptions,
} from './window/window-bytes-stores.ts';

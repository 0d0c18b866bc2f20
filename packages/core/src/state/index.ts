import { sessionStoreBuilder } from './session-store-builder.ts';
import { Stores as KeyValueStores } from './store-builder.ts';
import {
  inMemoryVersionedKeyValueStore,
  persistentVersionedKeyValueStore,
  versionedKeyValueStoreBuilder,
} from './versioned-store-builder.ts';
import { windowStoreBuilder } from './window-store-builder.ts';

export type {
  KeyValueStore,
  SessionEntry,
  SessionStore,
  SessionWindowedKey,
  VersionedKeyValueStore,
  VersionedRecord,
} from '@kstreams/state-store';
export {
  PUT_RETURN_CODE_NOT_PUT,
  PUT_RETURN_CODE_VALID_TO_UNDEFINED,
} from '@kstreams/state-store';
export type { Window, Windowed } from '../windowed.ts';
export type { ReadOnlySessionStore } from './session-store.ts';
export type { StateStore } from './state-store.ts';
export type { DslStoreFormat, StoreBuilder } from './store-builder.ts';
export type { ValueAndTimestamp } from './value-and-timestamp.ts';
export type { ValueTimestampHeaders } from './value-timestamp-headers.ts';
export type { VersionedBytesStoreSupplier } from './versioned-store-builder.ts';
export type { ReadOnlyWindowStore, WindowStore, WindowStoreEntry } from './window-store.ts';
export type { WindowStoreOptions } from './window-store-builder.ts';

/** Kafka Streams' Stores: builders of the stores a Processor API topology adds. */
export const Stores = {
  ...KeyValueStores,
  windowStoreBuilder,
  sessionStoreBuilder,
  persistentVersionedKeyValueStore,
  inMemoryVersionedKeyValueStore,
  versionedKeyValueStoreBuilder,
} as const;

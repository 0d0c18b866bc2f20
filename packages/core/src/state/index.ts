import { sessionStoreBuilder } from './session-store-builder.ts';
import { Stores as KeyValueStores } from './store-builder.ts';
import { windowStoreBuilder } from './window-store-builder.ts';

export type {
  KeyValueStore,
  SessionEntry,
  SessionStore,
  SessionWindowedKey,
} from '@kstreams/state-store';
export type { Window, Windowed } from '../windowed.ts';
export type { ReadOnlySessionStore } from './session-store.ts';
export type { StateStore } from './state-store.ts';
export type { StoreBuilder } from './store-builder.ts';
export type { ReadOnlyWindowStore, WindowStore, WindowStoreEntry } from './window-store.ts';
export type { WindowStoreOptions } from './window-store-builder.ts';

/** Kafka Streams' Stores: builders of the stores a Processor API topology adds. */
export const Stores = { ...KeyValueStores, windowStoreBuilder, sessionStoreBuilder } as const;

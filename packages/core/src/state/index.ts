export type { KeyValueStore } from '@kstreams/state-store';
export type { StateStore } from './state-store.ts';
export type { StoreBuilder } from './store-builder.ts';
export { Stores } from './store-builder.ts';

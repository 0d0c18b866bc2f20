import { join } from 'node:path';
import {
  InMemoryKeyValueStore,
  inMemorySessionBytesStore,
  inMemoryWindowBytesStore,
  type KeyValueBytesStore,
  LevelKeyValueStore,
  levelSessionBytesStore,
  levelWindowBytesStore,
} from '@kstreams/state-store';

/**
 * Where a task's bytes stores live: LevelDB under the task directory (the runtime) or memory (the
 * test driver). Each store builder picks the kind it needs (`StoreBuilder.bytesStore`), so that a
 * new store kind is one method on its builder, not a branch in every place that opens stores.
 */
export interface BytesStoreFactory {
  /** `valueFormat`: a non-default value layout ('headers'), which a persistent store records and checks. */
  keyValue(name: string, valueFormat?: 'headers'): KeyValueBytesStore;
  /** Time-segmented by window start; `retentionMs` by stream time. Each segment records `valueFormat`. */
  window(name: string, retentionMs: number, valueFormat?: 'headers'): KeyValueBytesStore;
  /** Time-segmented by session end. */
  session(name: string, retentionMs: number, valueFormat?: 'headers'): KeyValueBytesStore;
}

/** LevelDB stores in `<taskDir>/<storeName>/`. */
export function levelBytesStores(taskDir: string): BytesStoreFactory {
  const location = (name: string) => join(taskDir, name);
  return {
    keyValue: (name, valueFormat) =>
      new LevelKeyValueStore({ name, location: location(name), ...formatOption(valueFormat) }),
    window: (name, retentionMs, valueFormat) =>
      levelWindowBytesStore({ name, location: location(name), retentionMs, ...formatOption(valueFormat) }),
    session: (name, retentionMs, valueFormat) =>
      levelSessionBytesStore({ name, location: location(name), retentionMs, ...formatOption(valueFormat) }),
  };
}

function formatOption(valueFormat: 'headers' | undefined): { valueFormat?: string } {
  return valueFormat === undefined ? {} : { valueFormat };
}

export const inMemoryBytesStores: BytesStoreFactory = {
  keyValue: (name) => new InMemoryKeyValueStore(name),
  window: (name, retentionMs) => inMemoryWindowBytesStore({ name, retentionMs }),
  session: (name, retentionMs) => inMemorySessionBytesStore({ name, retentionMs }),
};

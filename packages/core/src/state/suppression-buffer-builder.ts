import type { Serde } from '../serdes/serde.ts';
import { keyValueBytesStoreBuilder, type StoreBuilder } from './store-builder.ts';
import { TimeOrderedKeyValueBuffer } from './time-ordered-key-value-buffer.ts';

/**
 * The suppression buffer's store in each task: a key-value bytes store (LevelDB in the runtime)
 * whose entries are Kafka Streams' suppression changelog values, so its changelog topic
 * (`<applicationId>-<name>-changelog`) carries Java's bytes and the restore needs no conversion;
 * each changelog value is marked with Java's format header `v` = 3.
 */
export function suppressionBufferBuilder<K, V>(
  name: string,
  keySerde: Serde<K> | undefined,
  valueSerde: Serde<V> | undefined,
  loggingEnabled: boolean,
): StoreBuilder<K, V> {
  return keyValueBytesStoreBuilder(
    name,
    { keySerde, valueSerde },
    {
      loggingEnabled,
      storeOver: (storeName, buffer, keys, values) =>
        new TimeOrderedKeyValueBuffer(storeName, buffer, keys, values),
      changelogHeaders: { v: Buffer.of(3) },
    },
  );
}

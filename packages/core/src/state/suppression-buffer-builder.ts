import type { KeyValueBytesStore, StoreSerde, TransactionalBuffer } from '@kstreams/state-store';
import type { Serde } from '../serdes/serde.ts';
import type { BytesStoreFactory } from './bytes-stores.ts';
import type { StateStore } from './state-store.ts';
import type { StoreBuilder } from './store-builder.ts';
import { TimeOrderedKeyValueBuffer } from './time-ordered-key-value-buffer.ts';

/**
 * The suppression buffer's store in each task: a key-value bytes store (LevelDB in the runtime)
 * whose entries are Kafka Streams' suppression changelog values, so its changelog topic
 * (`<applicationId>-<name>-changelog`) carries Java's bytes and the restore needs no conversion.
 */
class SuppressionBufferBuilder<K, V> implements StoreBuilder<K, V> {
  readonly type = 'key-value' as const;
  readonly changelogHeaders = { v: Buffer.of(3) };

  constructor(
    readonly name: string,
    readonly keySerde: Serde<K> | undefined,
    readonly valueSerde: Serde<V> | undefined,
    readonly loggingEnabled: boolean,
  ) {}

  withLoggingEnabled(): StoreBuilder<K, V> {
    return new SuppressionBufferBuilder(this.name, this.keySerde, this.valueSerde, true);
  }

  withLoggingDisabled(): StoreBuilder<K, V> {
    return new SuppressionBufferBuilder(this.name, this.keySerde, this.valueSerde, false);
  }

  bytesStore(stores: BytesStoreFactory): KeyValueBytesStore {
    return stores.keyValue(this.name);
  }

  build(buffer: TransactionalBuffer, keySerde: StoreSerde<K>, valueSerde: StoreSerde<V>): StateStore {
    return new TimeOrderedKeyValueBuffer(this.name, buffer, keySerde, valueSerde);
  }
}

export function suppressionBufferBuilder<K, V>(
  name: string,
  keySerde: Serde<K> | undefined,
  valueSerde: Serde<V> | undefined,
  loggingEnabled: boolean,
): StoreBuilder<K, V> {
  return new SuppressionBufferBuilder(name, keySerde, valueSerde, loggingEnabled);
}

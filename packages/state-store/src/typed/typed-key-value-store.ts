import type { TransactionalBuffer } from '../buffer/transactional-buffer.ts';
import { InvalidStoreArgumentError } from '../errors.ts';
import type { LastWriteTracking } from '../types.ts';

/** Converts store keys or values to bytes. Range queries follow the byte order of the serialized keys. */
export interface StoreSerde<T> {
  serialize(data: T): Buffer;
  deserialize(data: Buffer): T;
}

/** The typed view of a key-value store that processors use (Kafka Streams' name). */
export interface KeyValueStore<K, V> {
  readonly name: string;
  get(key: K): V | undefined;
  put(key: K, value: V): void;
  putIfAbsent(key: K, value: V): V | undefined;
  delete(key: K): V | undefined;
  range(from: K | undefined, to: K | undefined): AsyncIterableIterator<{ key: K; value: V }>;
  all(): AsyncIterableIterator<{ key: K; value: V }>;
  approximateNumEntries(): Promise<number>;
}

/**
 * Applies serdes over a task's transactional buffer. As in Kafka Streams, `put(key, null)`
 * deletes the key, and null keys are rejected.
 */
export class TypedKeyValueStore<K, V> implements KeyValueStore<K, V>, LastWriteTracking {
  readonly name: string;
  private readonly buffer: TransactionalBuffer;
  private readonly keySerde: StoreSerde<K>;
  private readonly valueSerde: StoreSerde<V>;
  /**
   * The last string or number key and its bytes: an operator reads a key and then writes it (an
   * aggregation's get and put), and serializing it once is enough. Not for object keys, which
   * could change between the calls.
   */
  private lastKey: unknown;
  private lastKeyBytes: Buffer | undefined;

  constructor(name: string, buffer: TransactionalBuffer, keySerde: StoreSerde<K>, valueSerde: StoreSerde<V>) {
    this.name = name;
    this.buffer = buffer;
    this.keySerde = keySerde;
    this.valueSerde = valueSerde;
  }

  /**
   * The same buffer read and written through another value serde, built from this one: lets a
   * store hold more than the value in its bytes (a timestamped store prefixes each value with its
   * timestamp) while the store and its changelog stay one.
   */
  withValueSerde<V2>(wrap: (valueSerde: StoreSerde<V>) => StoreSerde<V2>): TypedKeyValueStore<K, V2> {
    return new TypedKeyValueStore(this.name, this.buffer, this.keySerde, wrap(this.valueSerde));
  }

  get(key: K): V | undefined {
    return this.toValue(this.buffer.get(this.keyBytes(key, 'get')));
  }

  put(key: K, value: V): void {
    const keyBytes = this.keyBytes(key, 'put');
    if (value === null || value === undefined) this.buffer.delete(keyBytes);
    else this.buffer.put(keyBytes, this.valueSerde.serialize(value));
  }

  putIfAbsent(key: K, value: V): V | undefined {
    const keyBytes = this.keyBytes(key, 'putIfAbsent');
    const existing = this.buffer.get(keyBytes);
    if (existing !== undefined) return this.valueSerde.deserialize(existing);
    if (value !== null && value !== undefined) this.buffer.put(keyBytes, this.valueSerde.serialize(value));
    return undefined;
  }

  delete(key: K): V | undefined {
    return this.toValue(this.buffer.delete(this.keyBytes(key, 'delete')));
  }

  get lastWrittenId(): string | undefined {
    return this.buffer.lastWrittenId;
  }

  get lastWrittenBytes(): number {
    return this.buffer.lastWrittenBytes;
  }

  range(from: K | undefined, to: K | undefined): AsyncIterableIterator<{ key: K; value: V }> {
    const fromBytes = from === undefined ? undefined : this.keyBytes(from, 'range');
    const toBytes = to === undefined ? undefined : this.keyBytes(to, 'range');
    return this.deserializeAll(this.buffer.range(fromBytes, toBytes));
  }

  all(): AsyncIterableIterator<{ key: K; value: V }> {
    return this.deserializeAll(this.buffer.all());
  }

  approximateNumEntries(): Promise<number> {
    return this.buffer.approximateNumEntries();
  }

  private async *deserializeAll(
    entries: AsyncIterableIterator<{ key: Buffer; value: Buffer }>,
  ): AsyncIterableIterator<{ key: K; value: V }> {
    for await (const { key, value } of entries) {
      yield { key: this.keySerde.deserialize(key), value: this.valueSerde.deserialize(value) };
    }
  }

  private keyBytes(key: K, operation: string): Buffer {
    if (key === null || key === undefined) {
      throw new InvalidStoreArgumentError(
        `State store "${this.name}": ${operation} was called with a ${key} key; store keys must not be null or undefined.`,
      );
    }
    if (key === this.lastKey && this.lastKeyBytes !== undefined) return this.lastKeyBytes;
    const bytes = this.keySerde.serialize(key);
    if (typeof key === 'string' || typeof key === 'number') {
      this.lastKey = key;
      this.lastKeyBytes = bytes;
    }
    return bytes;
  }

  private toValue(bytes: Buffer | undefined): V | undefined {
    return bytes === undefined ? undefined : this.valueSerde.deserialize(bytes);
  }
}

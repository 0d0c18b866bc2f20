// The store a left or outer stream-stream join keeps its not-yet-joined records in, shared by
// both join processors, in Kafka Streams' byte layout so that its changelog is Java's:
// key `[timestamp int64][1 = left, 0 = right][key bytes]` (TimestampedKeyAndJoinSide), value a
// list of `[1 = left, 0 = right][value bytes]` (LeftOrRightValue) in Java's ListSerde format
// (`[1][count int32]([length int32][bytes])*`), since one key and timestamp may hold several
// records (Kafka Streams' ListValueStore). Iterated in key order: by timestamp, then right (0)
// before left (1), then key bytes.
import type { KeyValueBytesStore, StoreSerde, TransactionalBuffer } from '@kstreams/state-store';
import { ConfigError, SerdeError } from '../../errors.ts';
import type { DefaultSerdes, DefaultsAwareSerde } from '../../processor/internals/serde-resolver.ts';
import type { Serde } from '../../serdes/serde.ts';
import type { BytesStoreFactory } from '../../state/bytes-stores.ts';
import type { StateStore } from '../../state/state-store.ts';
import type { StoreBuilder } from '../../state/store-builder.ts';

/** A record of one side: `left` tells which (Kafka Streams' LeftOrRightValue). */
export interface LeftOrRightValue {
  readonly left: boolean;
  readonly value: unknown;
}

/** Both sides' value serdes; a missing one is the config's default value serde. */
export class LeftOrRightValueSerde implements DefaultsAwareSerde {
  constructor(
    private readonly leftSerde: Serde<unknown> | undefined,
    private readonly rightSerde: Serde<unknown> | undefined,
    private readonly storeName: string,
  ) {}

  withDefaults(defaults: DefaultSerdes): LeftOrRightValueSerde {
    const left = this.leftSerde ?? defaults.defaultValueSerde;
    const right = this.rightSerde ?? defaults.defaultValueSerde;
    if (left === undefined || right === undefined) {
      throw new ConfigError(
        `No value serde for the ${left === undefined ? 'left' : 'right'} side of state store '${this.storeName}': ` +
          `pass ${left === undefined ? 'valueSerde' : 'otherValueSerde'} in StreamJoined or set defaultValueSerde in the config`,
      );
    }
    return new LeftOrRightValueSerde(left, right, this.storeName);
  }

  /** Each side's serde (the default value serde for one not given): what `init` is called on. */
  innerSerdes(defaults: DefaultSerdes): Serde<unknown>[] {
    const sides = [
      this.leftSerde ?? defaults.defaultValueSerde,
      this.rightSerde ?? defaults.defaultValueSerde,
    ];
    return sides.filter((s) => s !== undefined);
  }

  // The topic (the store's changelog, bound by the state manager: topic-bound-serde.ts) reaches
  // both sides' serdes, as Kafka Streams' LeftOrRightValueSerializer passes it on.
  serialize(data: unknown, topic?: string): Buffer {
    const { left, value } = data as LeftOrRightValue;
    const bytes = this.serde(left).serialize(value, topic);
    return Buffer.concat([Buffer.from([left ? 1 : 0]), bytes]);
  }

  deserialize(data: Buffer, topic?: string): LeftOrRightValue {
    if (data.length < 1) throw new SerdeError(`State store '${this.storeName}': an empty join value`);
    const left = data[0] === 1;
    return { left, value: this.serde(left).deserialize(data.subarray(1), topic) };
  }

  /** The side's `prepare` of the value's own bytes (a registry serde's schema fetch on restore). */
  prepare(data: Buffer, topic?: string): Promise<void> | undefined {
    if (data.length < 1) return undefined;
    const serde = data[0] === 1 ? this.leftSerde : this.rightSerde;
    return serde?.prepare?.(data.subarray(1), topic);
  }

  private serde(left: boolean): Serde<unknown> {
    const serde = left ? this.leftSerde : this.rightSerde;
    if (serde === undefined)
      throw new ConfigError(`State store '${this.storeName}' has no resolved value serde`);
    return serde;
  }
}

/** Java's ListSerde over byte arrays: the variable-size strategy flag, the count, length-prefixed items. */
function encodeList(items: readonly Buffer[]): Buffer {
  let size = 5;
  for (const item of items) size += 4 + item.length;
  const out = Buffer.allocUnsafe(size);
  out.writeUInt8(1, 0);
  out.writeInt32BE(items.length, 1);
  let at = 5;
  for (const item of items) {
    out.writeInt32BE(item.length, at);
    item.copy(out, at + 4);
    at += 4 + item.length;
  }
  return out;
}

function decodeList(data: Buffer, storeName: string): Buffer[] {
  if (data.length < 5 || data[0] !== 1) {
    throw new SerdeError(`State store '${storeName}': not a list of join values (${data.length} bytes)`);
  }
  const count = data.readInt32BE(1);
  const items: Buffer[] = [];
  let at = 5;
  for (let i = 0; i < count; i++) {
    const length = data.readInt32BE(at);
    items.push(data.subarray(at + 4, at + 4 + length));
    at += 4 + length;
  }
  return items;
}

/** One record of the store, as the emitting scan sees it. */
export interface OuterJoinEntry {
  /** The store key's bytes: equal for every record of one key, timestamp and side. */
  readonly storeKey: Buffer;
  readonly timestamp: number;
  readonly left: boolean;
  readonly key: unknown;
  readonly value: unknown;
}

/** The typed view the join processors use (Kafka Streams' ListValueStore operations they call). */
export class OuterJoinStore implements StateStore {
  constructor(
    readonly name: string,
    private readonly buffer: TransactionalBuffer,
    private readonly keySerde: StoreSerde<unknown>,
    private readonly valueSerde: StoreSerde<unknown>,
  ) {}

  /** Bumped when the task rolls its uncommitted writes back (the scan state must not outlive them). */
  get rollbacks(): number {
    return this.buffer.rollbackCount;
  }

  storeKey(key: unknown, timestamp: number, left: boolean): Buffer {
    const keyBytes = this.keySerde.serialize(key);
    const out = Buffer.allocUnsafe(9 + keyBytes.length);
    out.writeBigInt64BE(BigInt(timestamp), 0);
    out.writeUInt8(left ? 1 : 0, 8);
    keyBytes.copy(out, 9);
    return out;
  }

  /** Appends a record to the list of its key, timestamp and side. */
  put(key: unknown, timestamp: number, value: LeftOrRightValue): void {
    const storeKey = this.storeKey(key, timestamp, value.left);
    const existing = this.buffer.get(storeKey);
    const items = existing === undefined ? [] : decodeList(existing, this.name);
    items.push(this.valueSerde.serialize(value));
    this.buffer.put(storeKey, encodeList(items));
  }

  /** Kafka Streams' putIfAbsent(key, null): deletes the list if there is one, writes nothing otherwise. */
  deleteIfPresent(key: unknown, timestamp: number, left: boolean): void {
    const storeKey = this.storeKey(key, timestamp, left);
    if (this.buffer.get(storeKey) !== undefined) this.buffer.delete(storeKey);
  }

  /** Deletes a whole list (Kafka Streams' put(key, null)). */
  delete(storeKey: Buffer): void {
    this.buffer.delete(storeKey);
  }

  /** Every record in key order, lists flattened in insertion order. */
  async *all(): AsyncIterableIterator<OuterJoinEntry> {
    for await (const { key: storeKey, value } of this.buffer.all()) {
      const timestamp = Number(storeKey.readBigInt64BE(0));
      const left = storeKey[8] === 1;
      const key = this.keySerde.deserialize(storeKey.subarray(9));
      for (const item of decodeList(value, this.name)) {
        const decoded = this.valueSerde.deserialize(item) as LeftOrRightValue;
        yield { storeKey, timestamp, left, key, value: decoded.value };
      }
    }
  }
}

/** The shared store of a left or outer stream-stream join (no caching, as in Kafka Streams). */
export class OuterJoinStoreBuilder implements StoreBuilder {
  readonly type = 'key-value' as const;
  readonly valueSerde: LeftOrRightValueSerde;

  constructor(
    readonly name: string,
    readonly keySerde: Serde<unknown> | undefined,
    private readonly sideSerdes: { left: Serde<unknown> | undefined; right: Serde<unknown> | undefined },
    readonly loggingEnabled: boolean,
  ) {
    this.valueSerde = new LeftOrRightValueSerde(sideSerdes.left, sideSerdes.right, name);
  }

  withLoggingEnabled(): StoreBuilder {
    return new OuterJoinStoreBuilder(this.name, this.keySerde, this.sideSerdes, true);
  }

  withLoggingDisabled(): StoreBuilder {
    return new OuterJoinStoreBuilder(this.name, this.keySerde, this.sideSerdes, false);
  }

  // What the restore prepares: a bad list is left for the store's read to report.
  readonly changelogSerdeBytes = {
    key: (bytes: Buffer) => bytes.subarray(9),
    values: (bytes: Buffer) => (bytes.length >= 5 && bytes[0] === 1 ? decodeList(bytes, this.name) : []),
  };

  bytesStore(stores: BytesStoreFactory): KeyValueBytesStore {
    return stores.keyValue(this.name);
  }

  build(
    buffer: TransactionalBuffer,
    keySerde: StoreSerde<unknown>,
    valueSerde: StoreSerde<unknown>,
  ): StateStore {
    return new OuterJoinStore(this.name, buffer, keySerde, valueSerde);
  }
}

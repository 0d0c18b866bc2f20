/** Kafka record headers: string or byte values; `undefined` entries are dropped on send. */
export interface Headers {
  [name: string]: Buffer | string | undefined;
}

/** A record flowing through the processor graph. Immutable: the `with*` methods copy. */
export class Record<K, V> {
  constructor(
    readonly key: K,
    readonly value: V,
    readonly timestamp: number,
    readonly headers: Headers = {},
  ) {}

  withKey<NK>(key: NK): Record<NK, V> {
    return new Record(key, this.value, this.timestamp, this.headers);
  }

  withValue<NV>(value: NV): Record<K, NV> {
    return new Record(this.key, value, this.timestamp, this.headers);
  }

  withTimestamp(timestamp: number): Record<K, V> {
    return new Record(this.key, this.value, timestamp, this.headers);
  }

  withHeaders(headers: Headers): Record<K, V> {
    return new Record(this.key, this.value, this.timestamp, headers);
  }
}

/**
 * A record whose key a processor must not change (`KStream.processValues`), so no repartition
 * is needed downstream. Only the framework creates these.
 */
export class FixedKeyRecord<K, V> {
  /** @internal */
  constructor(
    readonly key: K,
    readonly value: V,
    readonly timestamp: number,
    readonly headers: Headers = {},
  ) {}

  withValue<NV>(value: NV): FixedKeyRecord<K, NV> {
    return new FixedKeyRecord(this.key, value, this.timestamp, this.headers);
  }

  withTimestamp(timestamp: number): FixedKeyRecord<K, V> {
    return new FixedKeyRecord(this.key, this.value, timestamp, this.headers);
  }

  withHeaders(headers: Headers): FixedKeyRecord<K, V> {
    return new FixedKeyRecord(this.key, this.value, this.timestamp, headers);
  }
}

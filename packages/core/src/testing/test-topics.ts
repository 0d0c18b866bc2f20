// The typed input and output topics of the TopologyTestDriver (Kafka Streams' TestInputTopic and
// TestOutputTopic). They reach the driver through the small TopicDriver face, so that this module
// and the driver do not import each other.
import { StreamsError } from '../errors.ts';
import type { KeyValue } from '../kstream/key-value.ts';
import type { OutputRecord } from '../processor/internals/records.ts';
import type { Headers } from '../processor/record.ts';
import type { Serde } from '../serdes/serde.ts';

/** What the topics need of the driver. */
export interface TopicDriver {
  pipe(
    topic: string,
    key: Buffer | null,
    value: Buffer | null,
    timestamp: number,
    headers: Headers,
  ): Promise<void>;
  take(topic: string, max: number): OutputRecord[];
  queueSize(topic: string): number;
}

/** A record as an output topic holds it. */
export interface TestRecord<K, V> {
  readonly topic: string;
  readonly key: K | null;
  readonly value: V | null;
  readonly timestamp: number;
  readonly headers: Headers;
}

/** Pipes typed records into one input topic of a TopologyTestDriver. */
export class TestInputTopic<K, V> {
  /** @internal */
  constructor(
    private readonly driver: TopicDriver,
    readonly name: string,
    private readonly keySerde: Serde<K>,
    private readonly valueSerde: Serde<V>,
    private currentTimeMs: number,
    private readonly autoAdvanceMs: number,
  ) {}

  /**
   * Processes one record and everything it causes (repartitions, commits). Without a timestamp,
   * the topic's clock is used and then advanced by `autoAdvanceMs`.
   */
  pipeInput(key: K | null, value: V | null, timestamp?: number, headers: Headers = {}): Promise<void> {
    let ts = timestamp;
    if (ts === undefined) {
      ts = this.currentTimeMs;
      this.currentTimeMs += this.autoAdvanceMs;
    }
    const keyBytes = key === null ? null : this.keySerde.serialize(key, this.name);
    const valueBytes = value === null ? null : this.valueSerde.serialize(value, this.name);
    return this.driver.pipe(this.name, keyBytes, valueBytes, ts, headers);
  }

  async pipeValueList(values: Iterable<V | null>): Promise<void> {
    for (const value of values) await this.pipeInput(null, value);
  }

  async pipeKeyValueList(records: Iterable<KeyValue<K | null, V | null>>): Promise<void> {
    for (const { key, value } of records) await this.pipeInput(key, value);
  }

  advanceTime(ms: number): void {
    this.currentTimeMs += ms;
  }
}

/** Reads typed records from one output topic; reading consumes them. */
export class TestOutputTopic<K, V> {
  /** @internal */
  constructor(
    private readonly driver: TopicDriver,
    readonly name: string,
    private readonly keySerde: Serde<K>,
    private readonly valueSerde: Serde<V>,
  ) {}

  private decode(record: OutputRecord): TestRecord<K, V> {
    return {
      topic: record.topic,
      key: record.key === null ? null : this.keySerde.deserialize(record.key, record.topic),
      value: record.value === null ? null : this.valueSerde.deserialize(record.value, record.topic),
      timestamp: record.timestamp,
      headers: record.headers ?? {},
    };
  }

  readRecord(): TestRecord<K, V> {
    const [record] = this.driver.take(this.name, 1);
    if (record === undefined) throw new StreamsError(`No record left in output topic '${this.name}'`);
    return this.decode(record);
  }

  readKeyValue(): KeyValue<K | null, V | null> {
    const { key, value } = this.readRecord();
    return { key, value };
  }

  readValue(): V | null {
    return this.readRecord().value;
  }

  readRecordsToList(): TestRecord<K, V>[] {
    return this.driver.take(this.name, Number.POSITIVE_INFINITY).map((r) => this.decode(r));
  }

  readValuesToList(): Array<V | null> {
    return this.readRecordsToList().map((r) => r.value);
  }

  readKeyValuesToList(): Array<KeyValue<K | null, V | null>> {
    return this.readRecordsToList().map(({ key, value }) => ({ key, value }));
  }

  /** Last value per key (null for a tombstone). Records with a null key are an error. */
  readKeyValuesToMap(): Map<K, V | null> {
    const map = new Map<K, V | null>();
    for (const record of this.readRecordsToList()) {
      if (record.key === null) {
        throw new StreamsError(
          `readKeyValuesToMap: a record of '${this.name}' has a null key; use readKeyValuesToList`,
        );
      }
      map.set(record.key, record.value);
    }
    return map;
  }

  isEmpty(): boolean {
    return this.driver.queueSize(this.name) === 0;
  }

  getQueueSize(): number {
    return this.driver.queueSize(this.name);
  }
}

import type {
  CheckpointEntry,
  KeyValueBytesStore,
  KeyValueStore,
  SessionStore,
  TypedKeyValueStore,
} from '@kstreams/state-store';
import type { Logger } from 'pino';
import {
  type ExceptionHandlerSettings,
  resolveExceptionHandlers,
} from '../config/exception-handler-config.ts';
import { resolveSourceDefaults, type SourceDefaults } from '../config/source-config.ts';
import { ConfigError, StreamsError } from '../errors.ts';
import { GlobalStateUpdateTask } from '../processor/internals/global-state-update-task.ts';
import type { InputRecord, OutputRecord } from '../processor/internals/records.ts';
import { StreamTask } from '../processor/internals/stream-task.ts';
import type { Headers } from '../processor/record.ts';
import type { Topology } from '../processor/topology.ts';
import type { Serde } from '../serdes/serde.ts';
import { inMemoryBytesStores } from '../state/bytes-stores.ts';
import { DEFAULT_CACHE_MAX_BYTES, ThreadCache } from '../state/internals/thread-cache.ts';
import { type ReadOnlySessionStore, readOnlySessionStore } from '../state/session-store.ts';
import type { StoreBuilder } from '../state/store-builder.ts';
import { timestampedView, type ValueAndTimestamp } from '../state/value-and-timestamp.ts';
import type { ReadOnlyWindowStore, TypedWindowStore } from '../state/window-store.ts';
import { TestInputTopic, TestOutputTopic, type TopicDriver } from './test-topics.ts';

/**
 * The exception handlers (`deserializationExceptionHandler`, `processingExceptionHandler`,
 * `productionExceptionHandler`) and `errors.deadLetterQueueTopic` work as in StreamsConfig: a
 * dead-lettered record can be read from the DLQ topic with createOutputTopic.
 */
export interface TopologyTestDriverConfig extends ExceptionHandlerSettings, SourceDefaults {
  /** Prefix of internal topics (`<applicationId>-<name>-repartition`). Default: 'test-app'. */
  applicationId?: string;
  defaultKeySerde?: Serde<unknown>;
  defaultValueSerde?: Serde<unknown>;
  /** Start of the driver's wall clock (and default record timestamps). Default: Date.now(). */
  initialWallClockTimeMs?: number;
  /** Default: in-memory stores. */
  storeFactory?: (storeName: string, taskId: string, builder: StoreBuilder) => KeyValueBytesStore;
  /** Sink records larger than this are a RecordTooLargeError. Default 1,048,576. */
  maxRequestSize?: number;
  /**
   * The record cache, as in StreamsConfig (default 10 MiB; 0: none). As Kafka Streams' driver
   * does, the driver commits, and so flushes the caches, after each record: a cache only merges
   * the updates that one record makes to the same key (a flatMap before a count, say).
   */
  statestoreCacheMaxBytes?: number;
  /** Kafka Streams' `dsl.store.format`, as in StreamsConfig (default 'DEFAULT'). */
  dslStoreFormat?: 'DEFAULT' | 'HEADERS';
  logger?: Logger;
}

/**
 * Runs a topology in-process, one record at a time, with the same StreamTask and processors as
 * the runtime: one task per sub-topology (partition 0); records sent to a topic the topology
 * reads (repartition topics) are processed right away; every task commits after each input.
 */
export class TopologyTestDriver implements TopicDriver {
  readonly applicationId: string;
  private readonly topology: Topology;
  private readonly tasks: StreamTask[] = [];
  /** The global stores' task, if the topology has global tables: fed by piping into their topics. */
  private readonly globalTask: GlobalStateUpdateTask | undefined;
  private readonly taskByTopic = new Map<string, StreamTask>();
  private readonly outputs = new Map<string, OutputRecord[]>();
  private readonly offsets = new Map<string, number>();
  private readonly routed: OutputRecord[] = [];
  private readonly ready: Promise<void>;
  /** Serializes calls so that un-awaited pipes still run in order. */
  private queue: Promise<void> = Promise.resolve();
  private wallClockMs: number;
  private closed = false;

  constructor(topology: Topology, config: TopologyTestDriverConfig = {}) {
    this.applicationId = config.applicationId ?? 'test-app';
    this.topology = topology;
    this.wallClockMs = config.initialWallClockTimeMs ?? Date.now();
    const storeFactory =
      config.storeFactory ??
      ((_name: string, _taskId: string, builder: StoreBuilder) => builder.bytesStore(inMemoryBytesStores));
    const problems: string[] = [];
    const handlers = resolveExceptionHandlers(config, problems);
    const { defaultTimestampExtractor } = resolveSourceDefaults(config, problems);
    const format = config.dslStoreFormat ?? 'DEFAULT';
    if (format !== 'DEFAULT' && format !== 'HEADERS')
      problems.push(`"dslStoreFormat" must be 'DEFAULT' or 'HEADERS'; got ${JSON.stringify(format)}`);
    if (problems.length > 0)
      throw new ConfigError(`Invalid TopologyTestDriverConfig:\n  - ${problems.join('\n  - ')}`);
    topology.internalBuilder.applyDslStoreFormat(format);
    const defaultSerdes = {
      ...(config.defaultKeySerde === undefined ? {} : { defaultKeySerde: config.defaultKeySerde }),
      ...(config.defaultValueSerde === undefined ? {} : { defaultValueSerde: config.defaultValueSerde }),
    };
    if (topology.internalBuilder.globalSubtopology() !== undefined) {
      this.globalTask = new GlobalStateUpdateTask({
        applicationId: this.applicationId,
        topology,
        storeFactory,
        errorHandling: { handlers },
        ...(config.logger === undefined ? {} : { logger: config.logger }),
        now: () => this.wallClockMs,
        ...defaultSerdes,
      });
    }
    const globalStore = (name: string) => this.globalTask?.store(name);
    const threadCache = new ThreadCache(config.statestoreCacheMaxBytes ?? DEFAULT_CACHE_MAX_BYTES);
    for (const sub of topology.subtopologies(this.applicationId)) {
      const task = new StreamTask({
        id: { subtopology: sub.id, partition: 0 },
        applicationId: this.applicationId,
        topology,
        collector: { send: (record) => this.capture(record) },
        storeFactory,
        now: () => this.wallClockMs,
        globalStore,
        threadCache,
        defaultTimestampExtractor,
        ...defaultSerdes,
        // Every topic has one partition here, as in Java's TopologyTestDriver.
        errorHandling: {
          handlers,
          maxRecordBytes: config.maxRequestSize ?? 1_048_576,
          partitionCountOf: () => 1,
        },
        ...(config.logger === undefined ? {} : { logger: config.logger }),
      });
      this.tasks.push(task);
      for (const { topic } of task.inputPartitions) this.taskByTopic.set(topic, task);
    }
    this.ready = this.initialize();
    // Reported by the first call that awaits `ready`; this keeps Node from calling it unhandled.
    this.ready.catch(() => undefined);
  }

  private async initialize(): Promise<void> {
    await this.globalTask?.initialize();
    for (const task of this.tasks) await task.initializeStores();
    for (const task of this.tasks) await task.initializeTopology();
  }

  createInputTopic<K, V>(
    topic: string,
    keySerde: Serde<K>,
    valueSerde: Serde<V>,
    options: { startTimestampMs?: number; autoAdvanceMs?: number } = {},
  ): TestInputTopic<K, V> {
    if (!this.taskFor(topic) && !this.globalTask?.topics.includes(topic)) {
      const topics = [...this.taskByTopic.keys(), ...(this.globalTask?.topics ?? [])];
      throw new StreamsError(`The topology does not read topic '${topic}'; it reads ${topics.join(', ')}`);
    }
    return new TestInputTopic(
      this,
      topic,
      keySerde,
      valueSerde,
      options.startTimestampMs ?? this.wallClockMs,
      options.autoAdvanceMs ?? 0,
    );
  }

  /** Reads what the topology wrote to `topic` (including `<app>-<name>-repartition` and changelogs). */
  createOutputTopic<K, V>(topic: string, keySerde: Serde<K>, valueSerde: Serde<V>): TestOutputTopic<K, V> {
    return new TestOutputTopic(this, topic, keySerde, valueSerde);
  }

  /** Topics the topology has written to so far. */
  producedTopicNames(): string[] {
    return [...this.outputs.keys()];
  }

  /** Advances the wall clock and fires due wall-clock punctuators. */
  advanceWallClockTime(ms: number): Promise<void> {
    if (!Number.isFinite(ms) || ms < 0)
      throw new StreamsError(`advanceWallClockTime needs ms >= 0, got ${ms}`);
    return this.enqueue(async () => {
      this.wallClockMs += ms;
      for (const task of this.tasks) await task.punctuateWallClock(this.wallClockMs);
      await this.flushCaches();
      await this.processRouted();
      await this.commit();
    });
  }

  get wallClockTimeMs(): number {
    return this.wallClockMs;
  }

  /** Records skipped so far by every task: late, null keys, bad bytes (Kafka Streams' dropped-records-total). */
  get droppedRecordsTotal(): number {
    return this.tasks.reduce((n, task) => n + task.droppedRecordsTotal, 0);
  }

  /**
   * The typed store (reads see uncommitted writes first, as processors do). Usable right away;
   * reads before the first awaited call of the driver throw, as stores open asynchronously.
   */
  getKeyValueStore<K, V>(name: string): KeyValueStore<K, V> {
    // An aggregation's store keeps a timestamp with each value; the store itself shows the values only.
    return facade(name, this.typedStore<K, V>(name));
  }

  /** A timestamped store (a DSL aggregation's) with each value's timestamp (Kafka Streams' name). */
  getTimestampedKeyValueStore<K, V>(name: string): KeyValueStore<K, ValueAndTimestamp<V>> {
    const typed = this.typedStore<K, V>(name);
    if (!this.topology.internalBuilder.storeBuilder(name)?.timestamped) {
      throw new StreamsError(`State store '${name}' does not keep timestamps; use getKeyValueStore`);
    }
    return facade(name, () => timestampedView(typed()));
  }

  /** A window store (a windowed aggregation's shows plain values, as in Kafka Streams' driver). */
  getWindowStore<K, V>(name: string): ReadOnlyWindowStore<K, V> {
    if (this.topology.internalBuilder.storeBuilder(name)?.type !== 'window') {
      throw new StreamsError(`State store '${name}' is not a window store`);
    }
    const store = this.typedStore<K, V>(name) as unknown as () => TypedWindowStore<K, V>;
    return {
      name,
      fetch: ((key: K, from: number, to?: number) =>
        to === undefined ? store().fetch(key, from) : store().fetch(key, from, to)) as ReadOnlyWindowStore<
        K,
        V
      >['fetch'],
      backwardFetch: (key, from, to) => store().backwardFetch(key, from, to),
      fetchAll: (from, to) => store().fetchAll(from, to),
      all: () => store().all(),
    };
  }

  /** A session store (a session aggregation's): sessions by key, as Kafka Streams' driver gives it. */
  getSessionStore<K, V>(name: string): ReadOnlySessionStore<K, V> {
    if (this.topology.internalBuilder.storeBuilder(name)?.type !== 'session') {
      throw new StreamsError(`State store '${name}' is not a session store`);
    }
    const store = this.typedStore<K, V>(name) as unknown as () => SessionStore<K, V>;
    return readOnlySessionStore(name, store);
  }

  private typedStore<K, V>(name: string): () => TypedKeyValueStore<K, V> {
    const global = this.globalTask;
    if (global?.storeNames.includes(name))
      return () => global.store(name) as unknown as TypedKeyValueStore<K, V>;
    const task = this.tasks.find((t) => t.storeNames.includes(name));
    if (task === undefined) {
      const all = this.tasks.flatMap((t) => t.storeNames);
      throw new StreamsError(
        `No state store '${name}' in the topology (stores: ${all.join(', ') || 'none'})`,
      );
    }
    return () => task.store(name) as unknown as TypedKeyValueStore<K, V>;
  }

  /** Closes processors and stores. */
  close(): Promise<void> {
    return this.enqueue(async () => {
      this.closed = true;
      for (const task of this.tasks) await task.close();
      await this.globalTask?.close();
    }, true);
  }

  /** @internal Used by TestInputTopic. */
  pipe(
    topic: string,
    key: Buffer | null,
    value: Buffer | null,
    timestamp: number,
    headers: Headers,
  ): Promise<void> {
    return this.enqueue(async () => {
      await this.processOne(this.nextInput(topic, key, value, timestamp, headers));
      await this.processRouted();
      await this.commit();
    });
  }

  /** @internal Used by TestOutputTopic: takes the queued records of a topic. */
  take(topic: string, max: number): OutputRecord[] {
    const queue = this.outputs.get(topic);
    if (queue === undefined) return [];
    return queue.splice(0, max);
  }

  /** @internal */
  queueSize(topic: string): number {
    return this.outputs.get(topic)?.length ?? 0;
  }

  private enqueue(work: () => Promise<void>, allowClosed = false): Promise<void> {
    if (this.closed && !allowClosed)
      return Promise.reject(new StreamsError('The TopologyTestDriver is closed'));
    const run = this.queue.then(async () => {
      await this.ready;
      await work();
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  private nextInput(
    topic: string,
    key: Buffer | null,
    value: Buffer | null,
    timestamp: number,
    headers: Headers,
  ): InputRecord {
    const offset = this.offsets.get(topic) ?? 0;
    this.offsets.set(topic, offset + 1);
    return { topic, partition: 0, offset, key, value, timestamp, headers };
  }

  /**
   * The task reading `topic`; a topic matching a pattern source joins that source's task when
   * first piped to, as in Kafka Streams' driver.
   */
  private taskFor(topic: string): StreamTask | undefined {
    const known = this.taskByTopic.get(topic);
    if (known !== undefined) return known;
    const builder = this.topology.internalBuilder;
    if (!builder.hasPatternSources() || builder.matchPatternTopics([topic]).length === 0) return undefined;
    const sub = builder.subtopologies(this.applicationId).find((s) => s.sourceTopics.includes(topic));
    const task = this.tasks.find((t) => t.id.subtopology === sub?.id);
    if (task !== undefined) this.taskByTopic.set(topic, task);
    return task;
  }

  private async processOne(record: InputRecord): Promise<void> {
    if (this.globalTask?.topics.includes(record.topic)) {
      // A global topic updates the global store at once, as Kafka Streams' driver does.
      await this.globalTask.prepare([record]);
      this.globalTask.process(record);
      await this.globalTask.flush();
      return;
    }
    const task = this.taskFor(record.topic);
    if (task === undefined) throw new StreamsError(`The topology does not read topic '${record.topic}'`);
    await task.process(record);
    // Async operators: pipeInput resolves once the record's results are out, as Kafka Streams'
    // driver has everything of a record processed (and committed) when pipeInput returns.
    if (task.hasInFlight() || !task.canTakeRecord) await task.awaitInFlight();
    await this.flushCaches();
  }

  /** Kafka Streams' driver commits after each record: the caches forward what the record left there. */
  private async flushCaches(): Promise<void> {
    for (const task of this.tasks) await task.prepareCommit();
  }

  private capture(record: OutputRecord): void {
    let queue = this.outputs.get(record.topic);
    if (queue === undefined) {
      queue = [];
      this.outputs.set(record.topic, queue);
    }
    queue.push(record);
    if (this.taskByTopic.has(record.topic)) this.routed.push(record);
  }

  /** Records written to topics the topology reads, processed in the order they were sent. */
  private async processRouted(): Promise<void> {
    while (this.routed.length > 0) {
      const out = this.routed.shift()!;
      await this.processOne(this.nextInput(out.topic, out.key, out.value, out.timestamp, out.headers ?? {}));
    }
  }

  private async commit(): Promise<void> {
    for (const task of this.tasks) {
      if (!task.commitNeeded && !task.commitRequested) continue;
      const endOffsets = new Map<string, CheckpointEntry>();
      for (const change of task.changelogRecords()) {
        this.capture({
          topic: change.topic,
          key: change.key,
          value: change.value,
          timestamp: change.timestamp ?? this.wallClockMs,
          ...(change.headers === undefined ? {} : { headers: { ...change.headers } }),
        });
        const offset = (this.offsets.get(change.topic) ?? 0) + 1;
        this.offsets.set(change.topic, offset);
        endOffsets.set(change.topic, { topic: change.topic, partition: change.partition, offset });
      }
      await task.postCommit([...endOffsets.values()]);
    }
  }
}

/** Opens the store at each call, as stores open asynchronously after the driver is created. */
function facade<K, V>(name: string, store: () => KeyValueStore<K, V>): KeyValueStore<K, V> {
  return {
    name,
    get: (key) => store().get(key),
    put: (key, value) => store().put(key, value),
    putIfAbsent: (key, value) => store().putIfAbsent(key, value),
    delete: (key) => store().delete(key),
    range: (from, to) => store().range(from, to),
    all: () => store().all(),
    approximateNumEntries: () => store().approximateNumEntries(),
  };
}

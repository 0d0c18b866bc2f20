// Kafka Streams' GlobalStreamThread: keeps the global stores (GlobalKTables) of this instance.
// start() opens them under `<stateDir>/<applicationId>/global`, reads every partition of their
// topics from the global checkpoint to the end offsets known at start (read_committed), and
// resolves only then, so that no task processes before the global tables are whole; afterwards
// the same consumer keeps them current. The topics are their own changelogs: the checkpoint holds
// their offsets, flushed with the stores every commit interval.
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { ResolvedConfig } from '../config/streams-config.ts';
import { StreamsError } from '../errors.ts';
import type { StreamsAdmin, TopicPartitionOffset } from '../kafka/admin.ts';
import type { Kafka } from '../kafka/client.ts';
import { GlobalConsumer } from '../kafka/global-consumer.ts';
import { GLOBAL_TASK_ID, GlobalStateUpdateTask } from '../processor/internals/global-state-update-task.ts';
import type { InputRecord } from '../processor/internals/records.ts';
import { topicPartitionKey } from '../processor/internals/records.ts';
import type { Topology } from '../processor/topology.ts';
import { levelBytesStores } from '../state/bytes-stores.ts';
import type { StateStore } from '../state/state-store.ts';

export interface GlobalStreamThreadDeps {
  config: ResolvedConfig;
  topology: Topology;
  kafka: Kafka;
  admin: StreamsAdmin;
  logger: Logger;
  /** The global thread failed after start (a record it cannot apply, the consumer crashed). */
  onFatal(error: Error): void;
}

/** The initial load fails rather than hang (the topic may be unreadable). */
const RESTORE_TIMEOUT_MS = 10 * 60_000;

export class GlobalStreamThread {
  private readonly task: GlobalStateUpdateTask;
  private readonly consumer: GlobalConsumer;
  private readonly log: Logger;
  /** Next offset to apply, per partition. */
  private readonly positions = new Map<string, number>();
  private lastFlush = Date.now();
  private stopped = false;
  /** Set while the initial load runs: an error then fails start() instead of the app. */
  private failLoad: ((error: Error) => void) | undefined;

  constructor(private readonly deps: GlobalStreamThreadDeps) {
    const { config, topology } = deps;
    this.log = deps.logger.child({ thread: 'GlobalStreamThread' });
    const dir = join(config.stateDir, config.applicationId, GLOBAL_TASK_ID);
    this.task = new GlobalStateUpdateTask({
      applicationId: config.applicationId,
      topology,
      storeFactory: (_name, _taskId, builder) => builder.bytesStore(levelBytesStores(dir)),
      checkpointFile: join(dir, '.checkpoint'),
      errorHandling: { handlers: config.exceptionHandlers },
      defaultKeySerde: config.defaultKeySerde,
      defaultValueSerde: config.defaultValueSerde,
      logger: this.log,
    });
    this.consumer = new GlobalConsumer(deps.kafka, deps.admin);
  }

  /** A global store, for the tasks' processors and interactive queries. */
  store(name: string): StateStore | undefined {
    return this.task.store(name);
  }

  get storeNames(): string[] {
    return this.task.storeNames;
  }

  /** Resolves once every global store holds its topic up to the end offsets read at start. */
  async start(): Promise<void> {
    const { admin } = this.deps;
    const checkpoint = await this.task.initialize();
    const topics = this.task.topics;
    const ends = await admin.endOffsets(topics);
    const partitions = new Map<string, number[]>();
    const start: TopicPartitionOffset[] = [];
    for (const { topic, partition, offset: end } of ends) {
      partitions.set(topic, [...(partitions.get(topic) ?? []), partition]);
      let from = checkpoint.find((c) => c.topic === topic && c.partition === partition)?.offset ?? 0;
      if (from > end) {
        this.log.warn(
          { topic, partition, checkpoint: from, end },
          'global checkpoint is past the topic end (was the topic recreated?); reading it from the beginning',
        );
        from = 0;
      }
      this.positions.set(topicPartitionKey(topic, partition), from);
      start.push({ topic, partition, offset: from });
    }
    const restoring = ends.filter(
      (e) => (this.positions.get(topicPartitionKey(e.topic, e.partition)) ?? 0) < e.offset,
    );
    const startedAt = Date.now();
    let caughtUp!: () => void;
    let failed!: (error: Error) => void;
    const restored = new Promise<void>((resolve, reject) => {
      caughtUp = resolve;
      failed = reject;
    });
    this.failLoad = failed;
    const checkCaughtUp = () => {
      if (
        restoring.every((e) => (this.positions.get(topicPartitionKey(e.topic, e.partition)) ?? 0) >= e.offset)
      )
        caughtUp();
    };
    let loaded = false;
    await this.consumer.start(partitions, start, {
      onRecords: async (topic, partition, records) => {
        // A registry serde's schema fetch, for the records whose schema is not cached.
        const pending = this.task.prepare(records);
        if (pending !== undefined) await pending;
        this.apply(topic, partition, records);
        if (!loaded) checkCaughtUp();
        await this.maybeFlush();
      },
      onPosition: (topic, partition, next) => {
        this.advance(topic, partition, next);
        if (!loaded) checkCaughtUp();
      },
      onCrash: (error) => this.fail(error),
    });
    checkCaughtUp();
    const timer = setTimeout(
      () =>
        failed(
          new StreamsError(`global stores of ${topics.join(', ')} not loaded in ${RESTORE_TIMEOUT_MS} ms`),
        ),
      RESTORE_TIMEOUT_MS,
    );
    try {
      await restored;
    } finally {
      clearTimeout(timer);
      this.failLoad = undefined;
    }
    loaded = true;
    await this.task.flush();
    this.log.info(
      { topics, ms: Date.now() - startedAt, positions: this.task.positions() },
      'global stores loaded',
    );
  }

  private apply(topic: string, partition: number, records: InputRecord[]): void {
    if (this.stopped) return;
    const key = topicPartitionKey(topic, partition);
    try {
      for (const record of records) {
        // A batch fetched before the seek to the checkpoint holds records applied already.
        if (record.offset < (this.positions.get(key) ?? 0)) continue;
        this.task.process(record);
        this.positions.set(key, record.offset + 1);
      }
    } catch (error) {
      this.fail(error as Error);
      throw error;
    }
  }

  private advance(topic: string, partition: number, next: number): void {
    const key = topicPartitionKey(topic, partition);
    if (next <= (this.positions.get(key) ?? 0)) return;
    this.positions.set(key, next);
    this.task.skipTo(topic, partition, next);
  }

  private async maybeFlush(): Promise<void> {
    if (Date.now() - this.lastFlush < this.deps.config.commitIntervalMs) return;
    this.lastFlush = Date.now();
    await this.task.flush();
  }

  private fail(error: Error): void {
    if (this.stopped) return;
    if (this.failLoad !== undefined) {
      this.failLoad(error);
      return;
    }
    this.log.error({ err: error }, 'global stream thread failed');
    this.deps.onFatal(error);
  }

  /** Stops reading, flushes the stores and the checkpoint, closes them. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await this.consumer.stop();
    await this.task.flush().catch((error: unknown) => this.log.warn({ err: error }, 'global flush failed'));
    await this.task.close();
  }
}

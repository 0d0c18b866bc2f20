// A standby task (Kafka Streams' StandbyTask): a copy of a stateful task's stores on another
// instance, kept up to date from their changelogs, so that the task fails over to this instance
// with only the changelog tail to restore. It processes nothing and owns no input partitions; the
// instance's changelog reader (issue 36's manual assignment) hands it the records it reads.
//
// Under exactly_once it never holds uncommitted data: the reader is read_committed, so it gets
// only records of committed transactions, and only below the last stable offset. That suffices
// because the active writes a task's changelog records and commits its input offsets in one
// transaction: what a standby applies is always state some committed processing produced, and an
// aborted attempt never reaches it. A batch may end inside a committed transaction (the store then
// holds part of it, as an active's restore in progress does); a promoted standby's active restores
// the rest before it processes, so its store equals the committed state.
import { join } from 'node:path';
import type { KeyValueBytesStore } from '@kstreams/state-store';
import { StoreRestorer } from '@kstreams/state-store';
import type { Logger } from 'pino';
import type { ResolvedConfig } from '../config/streams-config.ts';
import type { TopicPartitionOffset } from '../kafka/admin.ts';
import { taskOffsetSum } from '../kafka/subscription-info.ts';
import { parseTaskId } from '../processor/internals/assignment/sticky-task-assignor.ts';
import {
  type ChangelogMessage,
  type ChangelogPartition,
  ProcessorStateManager,
} from '../processor/internals/processor-state-manager.ts';
import { topicPartitionKey } from '../processor/internals/records.ts';
import type { Topology } from '../processor/topology.ts';
import { levelBytesStores } from '../state/bytes-stores.ts';
import { applyChangelogRecords, restoreStart, wipeStore } from './restore.ts';
import { lockTaskDirectory, taskDirectory, unlockTaskDirectory } from './state-directory.ts';
import type { Task, TaskState } from './task.ts';

/**
 * Kafka Streams writes a standby's checkpoint at a commit only once its stores moved this many
 * records (OFFSET_DELTA_THRESHOLD_FOR_CHECKPOINT): a checkpoint is an fsync.
 */
export const CHECKPOINT_RECORDS_THRESHOLD = 10_000;

export interface StandbyTaskDeps {
  config: Pick<ResolvedConfig, 'applicationId' | 'stateDir' | 'defaultKeySerde' | 'defaultValueSerde'>;
  topology: Topology;
  logger: Logger;
}

interface Follower {
  readonly changelog: ChangelogPartition;
  readonly restorer: StoreRestorer;
  readonly convert: (message: ChangelogMessage) => ChangelogMessage;
  /** Serdes with a `prepare` (schema registry): what they need before the records are read. */
  readonly prepare: ((messages: readonly ChangelogMessage[]) => Promise<void>) | undefined;
  /** The next changelog offset to read: everything before it is in the store. */
  position: number;
}

export class StandbyTask implements Task {
  readonly kind = 'standby';
  /** A standby consumes no input: its active, on another instance, does. */
  readonly inputPartitions: Array<{ topic: string; partition: number }> = [];
  readonly changelogPartitions: readonly ChangelogPartition[];
  state: TaskState = 'created';
  private readonly stores: ProcessorStateManager;
  private readonly followers = new Map<string, Follower>();
  private readonly dir: string;
  private readonly log: Logger;
  private appliedSinceCheckpoint = 0;

  constructor(
    readonly id: string,
    deps: StandbyTaskDeps,
  ) {
    const [subtopology, partition] = parseTaskId(id);
    const group = deps.topology.internalBuilder.subtopologyNodes().find((g) => g.id === subtopology);
    if (group === undefined)
      throw new Error(`standby task ${id}: the topology has no sub-topology ${subtopology}`);
    // The active's folder: a promotion finds the standby's stores and checkpoint there.
    this.dir = taskDirectory(deps.config, id);
    this.log = deps.logger.child({ taskId: id, standby: true });
    this.stores = new ProcessorStateManager({
      taskId: id,
      applicationId: deps.config.applicationId,
      partition,
      defaultKeySerde: deps.config.defaultKeySerde,
      defaultValueSerde: deps.config.defaultValueSerde,
      storeFactory: (_name, _taskId, builder) => builder.bytesStore(levelBytesStores(this.dir)),
      checkpointFile: join(this.dir, '.checkpoint'),
      // Nothing is buffered: changelog records go straight to the bytes stores.
      onCommitRequested: () => {},
    });
    for (const builder of group.stores) this.stores.register(builder);
    this.changelogPartitions = this.stores.changelogPartitions;
    if (this.changelogPartitions.length === 0)
      throw new Error(
        `standby task ${id}: its sub-topology has no logged store, so there is nothing to stand by for`,
      );
  }

  /** Locks the task folder and opens the stores; positions start at the checkpoint (or 0). */
  async initialize(): Promise<void> {
    if (this.state !== 'created') throw new Error(`standby task ${this.id} is ${this.state}, not created`);
    lockTaskDirectory(this.dir, this, this.id);
    try {
      const checkpoint = await this.stores.initialize();
      for (const changelog of this.changelogPartitions) {
        const store = this.stores.bytesStore(changelog.storeName);
        const restorer = new StoreRestorer(store, changelog);
        const position = checkpoint.find(
          (c) => c.topic === changelog.topic && c.partition === changelog.partition,
        )?.offset;
        restorer.start(position ?? 0, Number.MAX_SAFE_INTEGER);
        this.followers.set(topicPartitionKey(changelog.topic, changelog.partition), {
          changelog,
          restorer,
          convert: this.stores.restoreConverter(changelog.storeName),
          prepare: this.stores.restorePreparer(changelog.storeName),
          position: position ?? 0,
        });
      }
    } catch (error) {
      await this.stores.close();
      unlockTaskDirectory(this.dir, this);
      throw error;
    }
    this.state = 'running';
  }

  /**
   * Where the changelog reader starts each partition; first, as an active's restore does, a
   * checkpoint past the end or below the log start wipes the store and moves the start.
   */
  async startPositions(
    logStart: (topic: string, partition: number) => number,
    end: (topic: string, partition: number) => number,
  ): Promise<TopicPartitionOffset[]> {
    this.assertRunning('startPositions');
    for (const f of this.followers.values()) {
      const { topic, partition } = f.changelog;
      const at = restoreStart(
        [{ topic, partition, offset: f.position }],
        f.changelog,
        logStart(topic, partition),
        end(topic, partition),
      );
      if (at.stale !== undefined) {
        this.log.warn(
          { store: f.changelog.storeName, changelog: topic, partition, position: f.position },
          at.stale,
        );
        await wipeStore(this.storeFor(f.changelog.storeName));
        f.position = at.start;
        // The old checkpoint must not outlive the wipe.
        await this.stores.commit([{ topic, partition, offset: at.start }]);
      }
    }
    return this.changelogOffsets();
  }

  /**
   * Applies records the changelog reader fetched (read_committed) for one changelog partition.
   * `nextOffset`: the reader's position after them, past any transaction markers.
   */
  async update(
    topic: string,
    partition: number,
    records: readonly ChangelogMessage[],
    nextOffset: number,
  ): Promise<void> {
    this.assertRunning('update');
    const f = this.followers.get(topicPartitionKey(topic, partition));
    if (f === undefined)
      throw new Error(
        `standby task ${this.id} does not follow ${topic}-${partition}; it follows ${this.changelogPartitions.map((c) => `${c.topic}-${c.partition}`).join(', ')}`,
      );
    if (nextOffset < f.position)
      throw new Error(
        `standby task ${this.id}: ${topic}-${partition} went back from ${f.position} to ${nextOffset}; the reader must resume at startPositions()`,
      );
    // As an active's restore: a registry serde fetches the schemas of these records now, so that
    // stale reads of the standby and its promoted active can read them (restore.ts).
    if (f.prepare !== undefined && records.length > 0) await f.prepare(records);
    await applyChangelogRecords(f.restorer, f.convert, records, nextOffset);
    f.position = nextOffset;
    this.appliedSinceCheckpoint += records.length;
  }

  /** The next offset to read of each changelog partition. */
  changelogOffsets(): TopicPartitionOffset[] {
    return [...this.followers.values()].map((f) => ({ ...f.changelog, offset: f.position })).map(strip);
  }

  /** What the instance reports for this task in its subscription (kafka/subscription-info.ts). */
  offsetSum(): number {
    return taskOffsetSum(this.changelogOffsets());
  }

  /** The task's stores (interactive queries with enableStaleStores look them up by name). */
  get storeNames(): string[] {
    return this.stores.storeNames;
  }

  /** The raw bytes store (for interactive queries on a standby, and tests). */
  storeFor(storeName: string): KeyValueBytesStore {
    return this.stores.bytesStore(storeName);
  }

  /**
   * At the thread's commit: writes the checkpoint once enough records were applied since the last
   * one (or always, `force`). The stores have every record before the positions already, so a
   * crash after it replays nothing twice; a crash before replays from the older checkpoint, which
   * is harmless since a changelog replay in order ends in the same state.
   */
  async maybeCheckpoint(force = false): Promise<boolean> {
    this.assertRunning('maybeCheckpoint');
    if (!force && this.appliedSinceCheckpoint < CHECKPOINT_RECORDS_THRESHOLD) return false;
    await this.stores.commit(this.changelogOffsets());
    this.appliedSinceCheckpoint = 0;
    return true;
  }

  /** Clean: checkpoints first. Dirty (the instance is failing): the last checkpoint stays. */
  async close({ dirty }: { dirty: boolean }): Promise<void> {
    if (this.state === 'closed') return;
    const wasRunning = this.state === 'running';
    this.state = 'closed';
    try {
      if (wasRunning && !dirty) await this.stores.commit(this.changelogOffsets());
      for (const f of this.followers.values()) f.restorer.end();
    } finally {
      const error = await this.stores.close();
      unlockTaskDirectory(this.dir, this);
      if (error !== undefined) this.log.warn({ err: error }, 'closing the standby stores failed');
    }
  }

  private assertRunning(what: string): void {
    if (this.state !== 'running')
      throw new Error(`standby task ${this.id}: ${what}() while ${this.state}; call initialize() first`);
  }
}

function strip(o: TopicPartitionOffset & { storeName?: string }): TopicPartitionOffset {
  return { topic: o.topic, partition: o.partition, offset: o.offset };
}

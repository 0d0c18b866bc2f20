// The standby tasks of a stream thread (issue 37), as Kafka Streams' TaskManager keeps them beside
// the actives: the assignment info's standby list says which to run; a standby opens only while its
// task folder is free (one folder lock: the active of the same task closes first, or the standby
// waits), closes with a checkpoint when it is no longer listed or its task turns active here (the
// promotion: the active's restore then starts at that checkpoint, reading only the tail), and is
// fed by the thread's changelog reader (standby-feed.ts).
import type { Logger } from 'pino';
import type { TopicPartitionOffset } from '../kafka/admin.ts';
import type { ChangelogMessage } from '../processor/internals/processor-state-manager.ts';
import type { TaskState } from './task.ts';

/** What the manager needs of a standby (standby-task.ts' StandbyTask, or a test's fake). */
export interface StandbyLike {
  readonly id: string;
  readonly kind: 'standby';
  state: TaskState;
  readonly changelogPartitions: ReadonlyArray<{ topic: string; partition: number }>;
  initialize(): Promise<void>;
  startPositions(
    logStart: (topic: string, partition: number) => number,
    end: (topic: string, partition: number) => number,
  ): Promise<TopicPartitionOffset[]>;
  update(
    topic: string,
    partition: number,
    records: readonly ChangelogMessage[],
    nextOffset: number,
  ): Promise<void>;
  changelogOffsets(): TopicPartitionOffset[];
  offsetSum(): number;
  maybeCheckpoint(force?: boolean): Promise<boolean>;
  close(options: { dirty: boolean }): Promise<void>;
}

/** Where standbys read their changelogs from (standby-feed.ts' StandbyFeed). */
export interface ChangelogFeed<S extends StandbyLike> {
  /** Starts reading the standby's changelog partitions at these positions. */
  follow(standby: S, positions: TopicPartitionOffset[]): void;
  /** Reads nothing for any standby until called with false (positions kept). */
  setPaused(paused: boolean): void;
  /** Stops reading them (the standby closes). */
  unfollow(standby: S): void;
  /** Log start and end offsets of these changelog topics (the stale-checkpoint rule needs both). */
  bounds(topics: string[]): Promise<{ logStarts: TopicPartitionOffset[]; ends: TopicPartitionOffset[] }>;
  close(): Promise<void>;
}

export interface StandbyTasksDeps<S extends StandbyLike> {
  create(id: string): S;
  feed: ChangelogFeed<S>;
  /** The task folder is the active's now (running, being created, or assigned to be). */
  activeHolds(id: string): boolean;
  /** Actives first: false while an active task of the thread starts (standby-priority.ts). */
  mayFeed?(): boolean;
  logger: Logger;
}

const RETRY_MS = 1_000;

export class StandbyTasks<S extends StandbyLike = StandbyLike> {
  readonly tasks = new Map<string, S>();
  /** The last assignment's standby list (warm-ups included: they run alike). */
  private wanted = new Set<string>();
  /** A standby that failed to open is tried again after RETRY_MS, not at every tick. */
  private readonly retryAt = new Map<string, number>();

  constructor(private readonly deps: StandbyTasksDeps<S>) {}

  /** The standbys that run (for interactive queries, the metadata and the subscription). */
  running(): S[] {
    return [...this.tasks.values()].filter((s) => s.state === 'running');
  }

  /**
   * Before these tasks open as actives here: their standbys close clean (checkpointing), so the
   * active finds the folder unlocked and restores only past the standby's position.
   */
  async promote(ids: Iterable<string>): Promise<void> {
    for (const id of ids) {
      const standby = this.tasks.get(id);
      if (standby === undefined) continue;
      this.deps.logger.info({ taskId: id, changelogs: standby.changelogOffsets() }, 'standby promoted');
      const started = Date.now();
      await this.closeOne(standby, false);
      this.deps.logger.debug({ taskId: id, ms: Date.now() - started }, 'standby closed for promotion');
    }
  }

  /** A new assignment's standby list: the unlisted close, the listed open when their folder is free. */
  async assign(ids: Iterable<string>): Promise<void> {
    const started = Date.now();
    this.wanted = new Set(ids);
    for (const s of [...this.tasks.values()]) if (!this.wanted.has(s.id)) await this.closeOne(s, false);
    await this.openMissing();
    this.deps.logger.debug({ standbys: [...this.wanted], ms: Date.now() - started }, 'standbys assigned');
  }

  /**
   * Pauses or resumes the feed (actives first), then opens the listed standbys not running yet
   * whose folder an active no longer holds. Called at each assignment and tick of the thread.
   */
  async openMissing(): Promise<void> {
    this.deps.feed.setPaused(!(this.deps.mayFeed?.() ?? true));
    const now = Date.now();
    const ids = [...this.wanted].filter(
      (id) => !this.tasks.has(id) && !this.deps.activeHolds(id) && (this.retryAt.get(id) ?? 0) <= now,
    );
    if (ids.length === 0) return;
    const opened: S[] = [];
    for (const id of ids) {
      let standby: S | undefined;
      try {
        standby = this.deps.create(id);
        await standby.initialize();
      } catch (error) {
        // Most likely the folder is still locked by the active closing: a later tick tries again.
        this.deps.logger.warn({ err: error, taskId: id }, 'standby task could not open yet');
        this.retryAt.set(id, now + RETRY_MS);
        continue;
      }
      this.retryAt.delete(id);
      this.tasks.set(id, standby);
      opened.push(standby);
    }
    if (opened.length === 0) return;
    const topics = [...new Set(opened.flatMap((s) => s.changelogPartitions.map((c) => c.topic)))];
    let bounds: Awaited<ReturnType<ChangelogFeed<S>['bounds']>>;
    try {
      bounds = await this.deps.feed.bounds(topics);
    } catch (error) {
      // The broker is away: close them again; the next tick tries anew.
      this.deps.logger.warn(
        { err: error, tasks: opened.map((s) => s.id) },
        'standby tasks wait for the broker',
      );
      for (const s of opened) await this.closeOne(s, false);
      return;
    }
    const { logStarts, ends } = bounds;
    const at = (list: TopicPartitionOffset[]) => (topic: string, partition: number) =>
      list.find((o) => o.topic === topic && o.partition === partition)?.offset ?? 0;
    for (const s of opened) {
      const positions = await s.startPositions(at(logStarts), at(ends));
      this.deps.feed.follow(s, positions);
      this.deps.logger.info({ taskId: s.id, positions }, 'standby task running');
    }
  }

  /** Closes a standby clean; if still listed, the next `openMissing` opens it again from its checkpoint. */
  async reopen(id: string): Promise<void> {
    const standby = this.tasks.get(id);
    if (standby !== undefined) await this.closeOne(standby, false);
  }

  /** At the thread's commit: each standby checkpoints once it moved far enough. */
  async checkpoint(): Promise<void> {
    for (const s of this.running()) await s.maybeCheckpoint();
  }

  /** Closes every standby (clean: checkpoints) and the feed. */
  async closeAll({ dirty }: { dirty: boolean }): Promise<void> {
    this.wanted.clear();
    for (const s of [...this.tasks.values()]) await this.closeOne(s, dirty);
    await this.deps.feed.close();
  }

  private async closeOne(standby: S, dirty: boolean): Promise<void> {
    this.deps.feed.unfollow(standby);
    this.tasks.delete(standby.id);
    await standby.close({ dirty });
  }
}

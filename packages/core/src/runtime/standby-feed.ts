// How standby tasks are fed (issue 37): their changelog partitions are read by the thread's
// long-lived changelog reader (kafka/changelog-reader.ts, no consumer group), which also serves
// the restores of new actives. A batch is applied to its standby in sections of the thread (the
// thread's mutex) of at most STANDBY_SECTION_RECORDS records each, so a standby never closes
// under an update and a catching-up standby does not hold the actives back; a batch fetched
// before an unfollow or a pause is dropped. Feeding pauses while the thread's actives start
// (standby-priority.ts). Read as the restore reads: read_committed under exactly_once, so a
// standby never holds records of a transaction that may still abort.

import type { Logger } from 'pino';
import type { StreamsAdmin, TopicPartitionOffset } from '../kafka/admin.ts';
import type { ChangelogReader } from '../kafka/changelog-reader.ts';
import type { FetcherBatch } from '../kafka/partition-fetcher.ts';
import { restoredRecord } from '../kafka/restore-consumer.ts';
import type { Mutex } from './mutex.ts';
import { StandbyTask, type StandbyTaskDeps } from './standby-task.ts';
import type { ChangelogFeed, StandbyLike } from './standby-tasks.ts';

export interface StandbyFeedDeps<S extends StandbyLike = StandbyLike> {
  reader: Pick<ChangelogReader, 'read' | 'stop' | 'pause' | 'resume'>;
  admin: Pick<StreamsAdmin, 'endOffsets' | 'startOffsets'>;
  mutex: Mutex;
  /** Debug lines: each batch's wait for the thread's section and its time inside (issue 37 failover). */
  logger?: Pick<Logger, 'debug'>;
  /** Records applied to standbys. */
  onApplied?(taskId: string, records: number): void;
  /** The standby no longer follows its changelogs (closed or promoted). */
  onUnfollowed?(taskId: string): void;
  /** The reader stopped for good (it retries transient failures itself for minutes). */
  onError(error: Error, standby: S): void;
}

const at = (list: TopicPartitionOffset[]) => (topic: string, partition: number) =>
  list.find((o) => o.topic === topic && o.partition === partition)?.offset ?? 0;

/** Records a standby applies per section of the thread (see StandbyFeed.apply). */
export const STANDBY_SECTION_RECORDS = 2_000;

export class StandbyFeed<S extends StandbyLike> implements ChangelogFeed<S> {
  private readonly following = new Set<S>();
  private paused = false;

  constructor(private readonly deps: StandbyFeedDeps<S>) {}

  async bounds(topics: string[]) {
    const [logStarts, ends] = await Promise.all([
      this.deps.admin.startOffsets(topics),
      this.deps.admin.endOffsets(topics),
    ]);
    return { logStarts, ends };
  }

  follow(standby: S, positions: TopicPartitionOffset[]): void {
    this.following.add(standby);
    const { mutex } = this.deps;
    // Applied only while this standby still follows: a batch queued behind its close is dropped.
    const live = () => this.following.has(standby) && standby.state === 'running';
    for (const { topic, partition, offset } of positions)
      this.deps.reader.read({ topic, partition }, offset, {
        onBatch: (batch) => this.apply(standby, batch, live),
        // Transaction markers or aborted records only: the standby's position moves past them.
        onControlRecords: (last) => {
          void mutex
            .run(async () => {
              if (!live()) return;
              const now = standby
                .changelogOffsets()
                .find((o) => o.topic === topic && o.partition === partition);
              if (now !== undefined && last + 1 > now.offset)
                await standby.update(topic, partition, [], last + 1);
            }, 'standby markers')
            .catch((e: Error) => this.deps.onError(e, standby));
        },
        // Records below the position were deleted (retention, deleteRecords): the standby wipes its
        // store and starts again at the log start (its stale-checkpoint rule).
        onOffsetOutOfRange: () =>
          mutex.run(async () => {
            const { logStarts, ends } = await this.bounds([topic]);
            const positions = live() ? await standby.startPositions(at(logStarts), at(ends)) : [];
            return (
              positions.find((o) => o.topic === topic && o.partition === partition)?.offset ??
              at(logStarts)(topic, partition)
            );
          }, 'standby offset out of range'),
        onError: (error) => this.deps.onError(error, standby),
      });
    // Joins the others in waiting; a fetch already sent for it is dropped.
    if (this.paused) this.deps.reader.pause([...standby.changelogPartitions]);
  }

  /**
   * Standbys wait while the thread's actives start (StandbyTasks decides when): their partitions
   * are paused in the reader, positions kept, and a batch fetched before is dropped.
   */
  setPaused(paused: boolean): void {
    if (paused === this.paused) return;
    this.paused = paused;
    const tps = [...this.following].flatMap((s) => [...s.changelogPartitions]);
    if (paused) this.deps.reader.pause(tps);
    else this.deps.reader.resume(tps);
    this.deps.logger?.debug({ paused, partitions: tps.length }, 'standby feeding paused or resumed');
  }

  /**
   * Applies a batch in sections of at most STANDBY_SECTION_RECORDS records: a standby catching up
   * (a new one restores its whole changelog) holds the thread for one section at a time, so the
   * actives' processing and commits interleave (a 1 MiB batch of ~32,000 counts held it 160-920 ms,
   * bench of 2026-12-06).
   */
  private async apply(standby: S, batch: FetcherBatch, live: () => boolean): Promise<void> {
    const { topic, partition, messages } = batch;
    for (let from = 0; from < messages.length; from += STANDBY_SECTION_RECORDS) {
      const chunk = messages.slice(from, from + STANDBY_SECTION_RECORDS);
      const last = from + STANDBY_SECTION_RECORDS >= messages.length;
      // The batch's last offset may lie past its last record (markers, aborted records).
      const next = last ? batch.lastOffset + 1 : Number(chunk[chunk.length - 1]!.offset) + 1;
      const queuedAt = Date.now();
      const applied = await this.deps.mutex.run(async () => {
        // Unfollowed, paused or sought since the fetch: the rest of the batch is dropped.
        if (!live() || batch.isStale()) return false;
        const startedAt = Date.now();
        // As restore reads them: a headers-aware store keeps the headers.
        const records = chunk.map(restoredRecord);
        await standby.update(topic, partition, records, next);
        batch.resolveOffset(next - 1);
        this.deps.onApplied?.(standby.id, records.length);
        this.deps.logger?.debug(
          {
            taskId: standby.id,
            records: records.length,
            waitedMs: startedAt - queuedAt,
            ms: Date.now() - startedAt,
          },
          'standby records applied',
        );
        return true;
      }, 'standby update');
      if (!applied) return;
    }
  }

  unfollow(standby: S): void {
    if (!this.following.delete(standby)) return;
    this.deps.reader.stop([...standby.changelogPartitions]);
    this.deps.onUnfollowed?.(standby.id);
  }

  /** The reader is the thread's: it outlives the standbys (TaskManager.closeReader). */
  async close(): Promise<void> {
    for (const s of [...this.following]) this.unfollow(s);
  }
}

/**
 * The runtime's standbys: real stores (standby-task.ts), fed through the thread's reader. A
 * standby whose reading failed (the broker away past the reader's retries) is reopened from its
 * checkpoint (`reopen`, in a section of the thread) rather than failing the thread.
 */
export function runtimeStandbys(
  deps: StandbyTaskDeps &
    Omit<StandbyFeedDeps, 'onError'> & { fatal(error: unknown): void; reopen(id: string): Promise<void> },
) {
  const feed = new StandbyFeed<StandbyLike>({
    ...deps,
    onError: (error, standby) => {
      deps.logger.warn(
        { err: error, taskId: standby.id },
        'standby stopped reading its changelog; reopening it',
      );
      void deps.mutex.run(() => deps.reopen(standby.id), 'reopen standby').catch((e) => deps.fatal(e));
    },
  });
  return { create: (id: string) => new StandbyTask(id, deps), feed };
}

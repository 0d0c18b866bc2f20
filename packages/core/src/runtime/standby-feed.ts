// How standby tasks are fed (issue 37): their changelog partitions are read by the thread's
// long-lived changelog reader (kafka/changelog-reader.ts, no consumer group), which also serves
// the restores of new actives. Each batch is applied to its standby as one section of the
// thread (the thread's mutex), so a standby never closes under an update; a batch fetched before
// an unfollow is dropped. Read as the restore reads: read_committed under exactly_once, so a
// standby never holds records of a transaction that may still abort.
import type { StreamsAdmin, TopicPartitionOffset } from '../kafka/admin.ts';
import type { ChangelogReader } from '../kafka/changelog-reader.ts';
import { fetchedTimestamp } from '../kafka/fetch-decoding.ts';
import type { ChangelogMessage } from '../processor/internals/processor-state-manager.ts';
import type { Mutex } from './mutex.ts';
import { StandbyTask, type StandbyTaskDeps } from './standby-task.ts';
import type { ChangelogFeed, StandbyLike } from './standby-tasks.ts';

export interface StandbyFeedDeps<S extends StandbyLike = StandbyLike> {
  reader: Pick<ChangelogReader, 'read' | 'stop'>;
  admin: Pick<StreamsAdmin, 'endOffsets' | 'startOffsets'>;
  mutex: Mutex;
  /** Records applied to standbys. */
  onApplied?(taskId: string, records: number): void;
  /** The standby no longer follows its changelogs (closed or promoted). */
  onUnfollowed?(taskId: string): void;
  /** The reader stopped for good (it retries transient failures itself for minutes). */
  onError(error: Error, standby: S): void;
}

const at = (list: TopicPartitionOffset[]) => (topic: string, partition: number) =>
  list.find((o) => o.topic === topic && o.partition === partition)?.offset ?? 0;

export class StandbyFeed<S extends StandbyLike> implements ChangelogFeed<S> {
  private readonly following = new Set<S>();

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
        onBatch: (batch) =>
          mutex.run(async () => {
            if (!live() || batch.isStale()) return;
            const records = batch.messages.map((m) => {
              const record: ChangelogMessage = { key: m.key, value: m.value, timestamp: fetchedTimestamp(m) };
              // Headers only when there are some: a headers-aware store keeps them (as restore does).
              for (const _ in m.headers) {
                record.headers = m.headers;
                break;
              }
              return record;
            });
            // The batch's last offset may lie past its last record (markers, aborted records).
            await standby.update(topic, partition, records, batch.lastOffset + 1);
            batch.resolveOffset(batch.lastOffset);
            this.deps.onApplied?.(standby.id, records.length);
          }, 'standby update'),
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

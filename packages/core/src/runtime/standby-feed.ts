// The changelog reader of a stream thread's standby tasks (issue 37): one long-lived fetch loop by
// manual assignment (kafka/partition-fetcher.ts, no consumer group, as Kafka Streams' restore
// consumer), read_committed so that a standby never holds records of a transaction that may still
// abort. Each batch is applied to its standby as one section of the thread (the thread's mutex),
// so a standby never closes under an update; a batch fetched before an unfollow is dropped.
// Restores of new actives still read through a fetcher of their own (restore.ts).

import type { StreamsAdmin, TopicPartitionOffset } from '../kafka/admin.ts';
import type { Kafka } from '../kafka/client.ts';
import { fetchedTimestamp } from '../kafka/fetch-decoding.ts';
import { PartitionFetcher } from '../kafka/partition-fetcher.ts';
import { topicPartitionKey } from '../processor/internals/records.ts';
import type { Mutex } from './mutex.ts';
import type { ChangelogFeed, StandbyLike } from './standby-tasks.ts';

export interface StandbyFeedDeps {
  kafka: Kafka;
  admin: Pick<StreamsAdmin, 'endOffsets' | 'startOffsets'>;
  mutex: Mutex;
  /** The changelog's end (last stable offset) of each answer: the standby's lag (metrics). */
  onFetchedEnd(topic: string, partition: number, endOffset: number): void;
  /** Records applied to standbys (the standby-updated metric). */
  onApplied?(taskId: string, records: number): void;
  /** The reader stopped for good (it retries transient failures itself for minutes). */
  onError(error: Error): void;
}

/** As the restore reader's (kafka/restore-consumer.ts). */
const MAX_BYTES = 10 * 1024 * 1024;
const MAX_BYTES_PER_PARTITION = 1024 * 1024;

export class StandbyFeed<S extends StandbyLike> implements ChangelogFeed<S> {
  private fetcher?: PartitionFetcher;
  private started?: Promise<void>;
  /** Changelog partition -> the standby that follows it. */
  private readonly followers = new Map<string, S>();

  constructor(private readonly deps: StandbyFeedDeps) {}

  async bounds(topics: string[]) {
    const [logStarts, ends] = await Promise.all([
      this.deps.admin.startOffsets(topics),
      this.deps.admin.endOffsets(topics),
    ]);
    return { logStarts, ends };
  }

  follow(standby: S, positions: TopicPartitionOffset[]): void {
    for (const p of positions) this.followers.set(topicPartitionKey(p.topic, p.partition), standby);
    this.reader().assign(positions);
  }

  unfollow(standby: S): void {
    const tps = standby.changelogPartitions.filter(
      (c) => this.followers.get(topicPartitionKey(c.topic, c.partition)) === standby,
    );
    for (const c of tps) this.followers.delete(topicPartitionKey(c.topic, c.partition));
    // Not awaited: the caller holds the mutex a batch of these may wait for; that batch is stale.
    if (tps.length > 0)
      void this.fetcher?.unassign(tps.map(({ topic, partition }) => ({ topic, partition })));
  }

  async close(): Promise<void> {
    this.followers.clear();
    const fetcher = this.fetcher;
    this.fetcher = undefined;
    await this.started?.catch(() => {});
    await fetcher?.stop();
  }

  /** The fetch loop, started at the first standby. */
  private reader(): PartitionFetcher {
    if (this.fetcher !== undefined) return this.fetcher;
    const fetcher = new PartitionFetcher({
      kafka: this.deps.kafka,
      readCommitted: true,
      maxWaitMs: 500,
      maxBytes: MAX_BYTES,
      maxBytesPerPartition: MAX_BYTES_PER_PARTITION,
      onFetchedEnd: (topic, partition, endOffset) => this.deps.onFetchedEnd(topic, partition, endOffset),
      onBatch: (batch) =>
        this.deps.mutex.run(async () => {
          const standby = this.followers.get(topicPartitionKey(batch.topic, batch.partition));
          if (standby === undefined || batch.isStale() || standby.state !== 'running') return;
          const records = batch.messages.map((m) => ({
            key: m.key,
            value: m.value,
            timestamp: fetchedTimestamp(m),
          }));
          // The batch's last offset may lie past its last record (markers, aborted records).
          const next = batch.lastOffset + 1;
          await standby.update(batch.topic, batch.partition, records, next);
          batch.resolveOffset(next - 1);
          this.deps.onApplied?.(standby.id, records.length);
        }, 'standby update'),
      // Transaction markers or aborted records only: the standby's position moves past them.
      onControlRecords: (topic, partition, _first, last) => {
        void this.deps.mutex
          .run(async () => {
            const standby = this.followers.get(topicPartitionKey(topic, partition));
            if (standby?.state !== 'running') return;
            const at = standby.changelogOffsets().find((o) => o.topic === topic && o.partition === partition);
            if (at !== undefined && last + 1 > at.offset)
              await standby.update(topic, partition, [], last + 1);
          }, 'standby markers')
          .catch((e: Error) => this.deps.onError(e));
      },
      // Records below the position were deleted (retention, deleteRecords): the standby wipes its
      // store and starts again at the log start (its stale-checkpoint rule).
      onOffsetOutOfRange: ({ topic, partition }) =>
        this.deps.mutex.run(async () => {
          const standby = this.followers.get(topicPartitionKey(topic, partition));
          const { logStarts, ends } = await this.bounds([topic]);
          const at = (list: TopicPartitionOffset[]) => (t: string, p: number) =>
            list.find((o) => o.topic === t && o.partition === p)?.offset ?? 0;
          const positions = standby ? await standby.startPositions(at(logStarts), at(ends)) : [];
          return (
            positions.find((o) => o.topic === topic && o.partition === partition)?.offset ??
            at(logStarts)(topic, partition)
          );
        }, 'standby offset out of range'),
      onError: (error) => this.deps.onError(error),
    });
    this.fetcher = fetcher;
    this.started = fetcher.start().catch((error: Error) => this.deps.onError(error));
    return fetcher;
  }
}

// A standby without stores: it records what the runtime asks of it (in the harness' shared call
// list, so a test sees the order of standby and active steps), and a feed that records which
// changelog partitions are followed from where.
import type { TopicPartitionOffset } from '../../../src/kafka/admin.ts';
import type { ChangelogMessage } from '../../../src/processor/internals/processor-state-manager.ts';
import type { ChangelogFeed, StandbyLike } from '../../../src/runtime/standby-tasks.ts';
import type { TaskState } from '../../../src/runtime/task.ts';

/** The changelog of task `0_p` is `app-counts-changelog`, partition p. */
export const CHANGELOG = 'app-counts-changelog';

export class FakeStandby implements StandbyLike {
  readonly kind = 'standby';
  state: TaskState = 'created';
  readonly changelogPartitions: Array<{ topic: string; partition: number }>;
  position: number;
  checkpointed: number | undefined;

  constructor(
    readonly id: string,
    private readonly calls: string[],
    /** The checkpoint its folder holds. */
    checkpoint = 0,
  ) {
    this.changelogPartitions = [{ topic: CHANGELOG, partition: Number(id.split('_')[1]) }];
    this.position = checkpoint;
  }

  async initialize(): Promise<void> {
    this.calls.push(`${this.id}.standby.initialize`);
    this.state = 'running';
  }

  async startPositions(): Promise<TopicPartitionOffset[]> {
    return this.changelogOffsets();
  }

  async update(
    _t: string,
    _p: number,
    records: readonly ChangelogMessage[],
    nextOffset: number,
  ): Promise<void> {
    this.calls.push(`${this.id}.standby.update(${records.length})`);
    this.position = nextOffset;
  }

  changelogOffsets(): TopicPartitionOffset[] {
    return this.changelogPartitions.map((c) => ({ ...c, offset: this.position }));
  }

  offsetSum(): number {
    return this.position;
  }

  async maybeCheckpoint(force = false): Promise<boolean> {
    if (!force) return false;
    this.checkpointed = this.position;
    return true;
  }

  async close({ dirty }: { dirty: boolean }): Promise<void> {
    this.calls.push(`${this.id}.standby.close(${dirty ? 'dirty' : 'clean'})`);
    if (!dirty) this.checkpointed = this.position;
    this.state = 'closed';
  }
}

export class FakeFeed implements ChangelogFeed<StandbyLike> {
  /** Changelog partition -> the position it is followed from. */
  readonly following = new Map<string, number>();
  closed = false;
  /** Each change of setPaused, in order. */
  readonly pauses: boolean[] = [];
  paused = false;

  setPaused(paused: boolean): void {
    if (paused === this.paused) return;
    this.paused = paused;
    this.pauses.push(paused);
  }

  follow(_standby: StandbyLike, positions: TopicPartitionOffset[]): void {
    for (const p of positions) this.following.set(`${p.topic}-${p.partition}`, p.offset);
  }

  unfollow(standby: StandbyLike): void {
    for (const c of standby.changelogPartitions) this.following.delete(`${c.topic}-${c.partition}`);
  }

  async bounds(topics: string[]) {
    const all = (offset: number) =>
      topics.flatMap((topic) => [0, 1, 2, 3].map((partition) => ({ topic, partition, offset })));
    return { logStarts: all(0), ends: all(1_000) };
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

// A task without processors, stores or producer: it records what the runtime asks of it, holds
// input offsets as "consumed" once told so, and fails where a test says.
import type { TopicPartitionOffset } from '../../../src/kafka/admin.ts';
import type { InputRecord } from '../../../src/processor/internals/records.ts';
import type { ActiveTask, TaskState } from '../../../src/runtime/task.ts';

export type FakeTaskFailure =
  | 'sendForCommit'
  | 'commitTransaction'
  | 'rollback'
  | 'initialize'
  | 'process'
  | 'awaitInFlight';

export class FakeTask implements ActiveTask {
  readonly kind = 'active';
  state: TaskState = 'created';
  consecutiveFailures = 0;
  /** What the runtime called, in order (`<id>.<method>`), shared between tasks when given. */
  readonly calls: string[];
  /** Methods that throw (or, for rollback, report a dead producer) on their next calls. */
  readonly failing = new Set<FakeTaskFailure>();
  /** Offsets processed since the last commit (what consumedOffsets returns). */
  consumed: TopicPartitionOffset[] = [];
  committed: TopicPartitionOffset[];
  commitRequested = false;
  processed: InputRecord[] = [];
  /** Output buffered since the last flush or commit. */
  buffered = 0;
  changelogEnds: TopicPartitionOffset[] = [];
  lastPostCommit?: { ends: TopicPartitionOffset[]; offsetsCommitted: boolean };

  constructor(
    readonly id: string,
    readonly inputPartitions: Array<{ topic: string; partition: number }>,
    calls: string[] = [],
  ) {
    this.calls = calls;
    this.committed = inputPartitions.map((p) => ({ ...p, offset: 0 }));
  }

  private call(method: FakeTaskFailure | string): void {
    this.calls.push(`${this.id}.${method}`);
    if (this.failing.has(method as FakeTaskFailure) && method !== 'rollback')
      throw new Error(`${this.id}.${method} failed (fake)`);
  }

  get commitNeeded(): boolean {
    return this.consumed.length > 0;
  }

  async initialize(): Promise<void> {
    this.call('initialize');
  }

  async initializeTopology(): Promise<void> {
    this.call('initializeTopology');
  }

  process(record: InputRecord): void {
    this.call('process');
    this.processed.push(record);
    this.buffered++;
  }

  punctuateWallClock(): void {}

  consumedOffsets(): TopicPartitionOffset[] {
    return this.consumed;
  }

  startPositions(): TopicPartitionOffset[] {
    return this.committed;
  }

  committedPositions(): TopicPartitionOffset[] {
    return this.committed;
  }

  async flush(): Promise<void> {
    this.call('flush');
    this.buffered = 0;
  }

  clearOutput(): void {
    this.buffered = 0;
  }

  /** Settles at once (no async operators); recorded only when made to fail. */
  async awaitInFlight(): Promise<void> {
    if (this.failing.has('awaitInFlight')) this.call('awaitInFlight');
  }

  async sendForCommit(): Promise<TopicPartitionOffset[]> {
    this.call('sendForCommit');
    this.buffered = 0;
    return this.changelogEnds;
  }

  async commitTransaction(): Promise<void> {
    this.call('commitTransaction');
    await this.postCommit(this.changelogEnds);
  }

  async postCommit(
    ends: TopicPartitionOffset[],
    {
      offsets = this.consumed,
      offsetsCommitted = true,
    }: { offsets?: TopicPartitionOffset[]; offsetsCommitted?: boolean } = {},
  ): Promise<void> {
    this.call('postCommit');
    this.lastPostCommit = { ends, offsetsCommitted };
    if (offsetsCommitted) {
      for (const o of offsets) {
        const at = this.committed.findIndex((c) => c.topic === o.topic && c.partition === o.partition);
        if (at >= 0) this.committed[at] = o;
      }
      this.consumed = [];
    }
    this.consecutiveFailures = 0;
  }

  async rollback(): Promise<boolean> {
    this.call('rollback');
    this.buffered = 0;
    this.consumed = [];
    return !this.failing.has('rollback');
  }

  async close({ dirty }: { dirty: boolean }): Promise<void> {
    this.calls.push(`${this.id}.close(${dirty ? 'dirty' : 'clean'})`);
    this.state = 'closed';
  }
}

// What the task manager, the processing guarantees and the stream thread need of a task (Kafka
// Streams' Task). The active task (task-runtime.ts) processes its input and commits; the standby
// task (standby-task.ts, issue 37) only follows its stores' changelogs.
import type { TopicPartitionOffset } from '../kafka/admin.ts';
import type { InputRecord } from '../processor/internals/records.ts';

export type TaskState = 'created' | 'running' | 'closed';

export interface Task {
  readonly id: string;
  readonly kind: 'active' | 'standby';
  state: TaskState;
  /** The input partitions the task owns: paused while it is not running (none for a standby). */
  readonly inputPartitions: Array<{ topic: string; partition: number }>;
  /** Fences an earlier owner (exactly_once), reads where to start and opens the stores. */
  initialize(): Promise<void>;
  /** Closes the task; `dirty`: without committing (its work since the last commit is dropped). */
  close(options: { dirty: boolean }): Promise<void>;
}

/** A task that processes its input and commits (Kafka Streams' StreamTask with its producer). */
export interface ActiveTask extends Task {
  readonly kind: 'active';
  /** Failures of its processing in a row; a commit resets it. */
  consecutiveFailures: number;
  /** Processed records since the last commit, or punctuators' output, wait for a commit. */
  readonly commitNeeded: boolean;
  /** A processor asked for a commit (ProcessorContext.commit()). */
  readonly commitRequested: boolean;
  /** After the stores are restored: the processors' init. */
  initializeTopology(): Promise<void>;
  process(record: InputRecord): void | Promise<void>;
  punctuateWallClock(nowMs: number): void | Promise<void>;
  /** The next offset to commit for each input partition the task has processed records of. */
  consumedOffsets(): TopicPartitionOffset[];
  /** Where the consumer starts each input partition, and goes back to after a rollback. */
  startPositions(): TopicPartitionOffset[];
  /** The offsets of the task's last commit (or its start offsets). */
  committedPositions(): TopicPartitionOffset[];
  /** Waits for the records its async operators took (their output is then buffered); rejects on their failure. */
  awaitInFlight(): Promise<void>;
  /** Sends the buffered output (under a transaction, possibly still in flight when it returns). */
  flush(): Promise<void>;
  /** Drops the output buffered and not sent yet. */
  clearOutput(): void;
  /** Sends the remaining output and the store changes; returns the changelog end offsets. */
  sendForCommit(): Promise<TopicPartitionOffset[]>;
  /** exactly_once: commits the task's own transaction with its input offsets. */
  commitTransaction(groupId: string): Promise<void>;
  /** After Kafka accepted the commit: the stores apply their buffers and the checkpoint moves. */
  postCommit(
    changelogEnds: TopicPartitionOffset[],
    options?: { offsets?: TopicPartitionOffset[]; offsetsCommitted?: boolean },
  ): Promise<void>;
  /** Drops everything since the last commit. False when the producer could not abort (it is dead). */
  rollback(): Promise<boolean>;
}

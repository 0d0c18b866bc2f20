import type { RecordCache } from '../../state/internals/thread-cache.ts';
import type { StateStore } from '../../state/state-store.ts';
import type {
  Cancellable,
  ProcessorContext,
  PunctuationType,
  Punctuator,
  RecordMetadata,
} from '../processor.ts';
import type { FixedKeyRecord, Record } from '../record.ts';
import type { TaskId } from '../task-id.ts';
import type { CommitListener } from './commit-point.ts';
import type { DefaultSerdes } from './serde-resolver.ts';

/** What a node's context needs from its task. */
export interface TaskServices {
  readonly applicationId: string;
  readonly id: TaskId;
  readonly idString: string;
  forward(
    from: RuntimeNodeRef,
    record: Record<unknown, unknown> | FixedKeyRecord<unknown, unknown>,
    childName?: string,
  ): void;
  stateStore(node: RuntimeNodeRef, name: string): StateStore;
  schedule(
    node: RuntimeNodeRef,
    intervalMs: number,
    type: PunctuationType,
    punctuator: Punctuator,
  ): Cancellable;
  recordMetadata(): RecordMetadata | undefined;
  requestCommit(): void;
  streamTime(): number;
  wallClockTime(): number;
  /** A DSL operator skipped a record (late, null key): counted as dropped, logged once per reason. */
  recordDropped(node: RuntimeNodeRef, reason: string): void;
  /** The config's default serdes, for operators that serialize themselves (the foreign-key join). */
  readonly defaultSerdes?: DefaultSerdes;
  /** A record cache for a DSL store; undefined when the instance caches nothing. */
  recordCache?<T>(storeName: string, forward: (first: T, latest: T) => void): RecordCache<T> | undefined;
  /** Told of the task's commits and rollbacks (state a DSL operator keeps beside its stores). */
  onCommitAndRollback?(listener: CommitListener): void;
}

export interface RuntimeNodeRef {
  readonly name: string;
}

/**
 * One context per node, so that a processor that forwards after an `await` still forwards from
 * itself, whatever the task is doing meanwhile.
 */
export class ProcessorContextImpl implements ProcessorContext<unknown, unknown> {
  constructor(
    private readonly task: TaskServices,
    private readonly node: RuntimeNodeRef,
  ) {}

  get applicationId(): string {
    return this.task.applicationId;
  }

  get taskId(): TaskId {
    return this.task.id;
  }

  forward(record: Record<unknown, unknown> | FixedKeyRecord<unknown, unknown>, childName?: string): void {
    this.task.forward(this.node, record, childName);
  }

  getStateStore<S extends StateStore>(name: string): S {
    return this.task.stateStore(this.node, name) as S;
  }

  schedule(intervalMs: number, type: PunctuationType, punctuator: Punctuator): Cancellable {
    return this.task.schedule(this.node, intervalMs, type, punctuator);
  }

  recordMetadata(): RecordMetadata | undefined {
    return this.task.recordMetadata();
  }

  commit(): void {
    this.task.requestCommit();
  }

  currentStreamTimeMs(): number {
    return this.task.streamTime();
  }

  currentSystemTimeMs(): number {
    return this.task.wallClockTime();
  }

  /** Internal: for the DSL's operators that serialize themselves (Kafka Streams' context.keySerde()). */
  defaultSerdes(): DefaultSerdes {
    return this.task.defaultSerdes ?? {};
  }

  /** Internal: for the DSL's materializing operators (Kafka Streams' caching layer). */
  recordCache<T>(storeName: string, forward: (first: T, latest: T) => void): RecordCache<T> | undefined {
    return this.task.recordCache?.(storeName, forward);
  }

  /** Internal: for the DSL's operators' observed stream time, which rolls back with the task. */
  onCommitAndRollback(listener: CommitListener): void {
    this.task.onCommitAndRollback?.(listener);
  }

  /** Internal: for the DSL's operators (Kafka Streams' dropped-records sensor). */
  recordDropped(reason: string): void {
    this.task.recordDropped(this.node, reason);
  }
}

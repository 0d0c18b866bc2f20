import type { StateStore } from '../state/state-store.ts';
import type { FixedKeyRecord, Record } from './record.ts';
import type { TaskId } from './task-id.ts';

export type PunctuationType = 'stream-time' | 'wall-clock-time';

/** Called by a schedule with the stream time or wall-clock time that triggered it. */
export type Punctuator = (timestamp: number) => void | Promise<void>;

/** A handle to stop a schedule. */
export interface Cancellable {
  cancel(): void;
}

/** Where the record being processed came from. Undefined during punctuation. */
export interface RecordMetadata {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
}

interface BaseProcessorContext {
  readonly applicationId: string;
  readonly taskId: TaskId;
  /** A state store connected to this processor. */
  getStateStore<S extends StateStore>(name: string): S;
  /**
   * Calls `punctuator` every `intervalMs`. Stream time: aligned to 0 and checked after each
   * record (fires on the first record, then whenever stream time reaches the next multiple of
   * the interval). Wall-clock time: first after `intervalMs`, driven by the runtime's clock.
   */
  schedule(intervalMs: number, type: PunctuationType, punctuator: Punctuator): Cancellable;
  recordMetadata(): RecordMetadata | undefined;
  /** Asks for a commit as soon as possible (a request, not a synchronous commit). */
  commit(): void;
  currentStreamTimeMs(): number;
  currentSystemTimeMs(): number;
}

export interface ProcessorContext<KOut = never, VOut = never> extends BaseProcessorContext {
  /** Sends a record to every child, or only to the child named `childName`. */
  forward<K extends KOut, V extends VOut>(record: Record<K, V>, childName?: string): void;
}

export interface FixedKeyProcessorContext<K, VOut = never> extends BaseProcessorContext {
  forward<V extends VOut>(record: FixedKeyRecord<K, V>, childName?: string): void;
}

/**
 * A node of the processor graph. A new instance per task; `process` may return a promise, which
 * the task awaits before the next record.
 */
export interface Processor<KIn, VIn, KOut = never, VOut = never> {
  init?(context: ProcessorContext<KOut, VOut>): void;
  process(record: Record<KIn, VIn>): void | Promise<void>;
  close?(): void | Promise<void>;
}

export interface FixedKeyProcessor<K, VIn, VOut = never> {
  init?(context: FixedKeyProcessorContext<K, VOut>): void;
  process(record: FixedKeyRecord<K, VIn>): void | Promise<void>;
  close?(): void | Promise<void>;
}

/** Makes a fresh processor; called once per task. */
export type ProcessorSupplier<KIn, VIn, KOut = never, VOut = never> = () => Processor<KIn, VIn, KOut, VOut>;

export type FixedKeyProcessorSupplier<K, VIn, VOut = never> = () => FixedKeyProcessor<K, VIn, VOut>;

/** A processor that keeps its context in `this.context`. */
export abstract class ContextualProcessor<KIn, VIn, KOut = never, VOut = never>
  implements Processor<KIn, VIn, KOut, VOut>
{
  private ctx: ProcessorContext<KOut, VOut> | undefined;

  init(context: ProcessorContext<KOut, VOut>): void {
    this.ctx = context;
  }

  protected get context(): ProcessorContext<KOut, VOut> {
    if (this.ctx === undefined) throw new Error(`${this.constructor.name}: context used before init()`);
    return this.ctx;
  }

  abstract process(record: Record<KIn, VIn>): void | Promise<void>;
}

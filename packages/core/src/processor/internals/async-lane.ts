// The records of one asynchronous operator in one task: which calls run, which wait (for their
// key, or for a slot under maxInFlight), and the order their results leave in. Broker-free: the
// task gives it an AsyncHost, the unit tests give it theirs.
import { AsyncTimeoutError } from '../../errors.ts';
import type { AsyncCall, AsyncProcessor, ResolvedAsyncOptions } from '../async-processor.ts';
import type { RecordMetadata } from '../processor.ts';
import type { Record } from '../record.ts';
import { type Deadline, DeadlineQueue } from './async-deadlines.ts';
import type { InputRecord } from './records.ts';

type AnyRecord = Record<unknown, unknown>;
type Outputs = Iterable<AnyRecord> | undefined;

/** What a lane needs from its task. */
export interface AsyncHost {
  /** Runs `lane.forwardAll(outputs)` with `input` as the task's current record (their record context). */
  emit(input: InputRecord | undefined, lane: AsyncLane, outputs: Iterable<AnyRecord>): void;
  /** Asks the processing exception handler; true: drop the record and go on. */
  judge(error: unknown, nodeName: string, input: InputRecord | undefined, record: AnyRecord): boolean;
  /** The task fails with `error` (it surfaces at the task's next record or commit). */
  fail(error: unknown, nodeName: string, input: InputRecord | undefined): void;
  /** Told when the lane becomes blocked or unblocked, or its record count reaches 0. */
  changed(lane: AsyncLane): void;
  /** Told of each finished call (result, error or timeout): the runtime's latency and timeout metrics. */
  called(latencyMs: number, timedOut: boolean): void;
  now(): number;
}

/** Per-lane counters, summed per task for the metrics. */
export interface AsyncLaneStats {
  completed: number;
  latencyTotalMs: number;
  latencyMaxMs: number;
  timeouts: number;
}

/**
 * One record of the lane, and its call's `AsyncCall` (one object per record: the lane's per-record
 * allocations are a good part of its cost at thousands of calls per second). The AbortController
 * is made when the processor first reads `signal`: a controller and its signal (an EventTarget)
 * cost about 6 µs and a good part of the GC per call, 11% of a 20 ms timer's records at
 * maxInFlight 1,000 (bench/async-http.bench.ts, 2026-12-06). An abort before the first read is
 * kept, so a signal read late is already aborted. `onAbort` listeners are plain callbacks.
 */
class Entry implements AsyncCall, Deadline {
  done = false;
  outputs: Outputs = undefined;
  error: unknown = undefined;
  /** The next record of the same key, started once this one is done. */
  next: Entry | undefined = undefined;
  started = 0;
  deadline = 0;
  /** The lane's epoch when the call started: a call of an abandoned epoch is ignored. */
  epoch = -1;
  private controller: AbortController | undefined = undefined;
  private listeners: Array<(reason: unknown) => void> | undefined = undefined;
  private abortReason: unknown = undefined;
  private aborted = false;
  constructor(
    readonly record: AnyRecord,
    readonly input: InputRecord | undefined,
    readonly key: unknown,
    private readonly lane: AsyncLane,
  ) {}

  get metadata(): RecordMetadata | undefined {
    const input = this.input;
    return input === undefined
      ? undefined
      : { topic: input.topic, partition: input.partition, offset: input.offset };
  }

  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.abortReason);
      else this.watch();
    }
    return this.controller.signal;
  }

  onAbort(listener: (reason: unknown) => void): void {
    if (this.aborted) listener(this.abortReason);
    else if (!this.done) {
      if (this.listeners === undefined) this.listeners = [listener];
      else this.listeners.push(listener);
      this.watch();
    }
  }

  /** Whether the lane must abort this call when it abandons its records (its abort is observed). */
  get watched(): boolean {
    return this.controller !== undefined || this.listeners !== undefined;
  }

  /** Joins the calls the lane aborts on abandon; aborts at once when already abandoned. */
  private watch(): void {
    if (!this.lane.watch(this)) this.abort(new Error('the task abandoned the record'));
  }

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.abortReason = reason;
    this.controller?.abort(reason);
    const listeners = this.listeners;
    this.listeners = undefined;
    if (listeners !== undefined) for (const listener of listeners) listener(reason);
  }
}

/** Map identity of a key: primitives as they are, anything else (bytes, objects) by content. */
export function keyIdentity(key: unknown): unknown {
  if (key === null || key === undefined) return null;
  const type = typeof key;
  if (type !== 'object') return key;
  if (key instanceof Uint8Array)
    return `\u0000b${Buffer.from(key.buffer, key.byteOffset, key.byteLength).toString('hex')}`;
  return `\u0000j${JSON.stringify(key)}`;
}

export class AsyncLane {
  /** Accepted and not yet released: waiting, running or done but held for the order. */
  size = 0;
  private running = 0;
  /** Last accepted record of each key with records in the lane. */
  private readonly tails = new Map<unknown, Entry>();
  /** Free to start, waiting for a slot. */
  private ready: Entry[] = [];
  /** ordering 'partition': every record not yet released, in input order, from `orderHead`. */
  private order: Entry[] = [];
  private orderHead = 0;
  /** Bumped when the lane abandons its records: calls of an earlier epoch are ignored. */
  private epoch = 0;
  /** The running calls whose signal was read or onAbort called, to abort when the lane abandons them. */
  private readonly watchedCalls = new Set<Entry>();
  /** timeoutMs' clock: one timer for the lane's calls. */
  private readonly deadlines: DeadlineQueue<Entry> | undefined;
  readonly stats: AsyncLaneStats = { completed: 0, latencyTotalMs: 0, latencyMaxMs: 0, timeouts: 0 };
  /** True while the lane forwards results: the only time its processor's context may forward. */
  emitting = false;

  constructor(
    readonly nodeName: string,
    private readonly processor: AsyncProcessor<unknown, unknown, unknown, unknown>,
    readonly options: ResolvedAsyncOptions,
    private readonly host: AsyncHost,
    /** Forwards one result to the node's children. */
    private readonly forward: (record: AnyRecord) => void,
  ) {
    const { timeoutMs } = options;
    this.deadlines =
      timeoutMs === undefined ? undefined : new DeadlineQueue<Entry>(timeoutMs, (e) => this.timedOut(e));
  }

  /**
   * Set at maxInFlight; cleared once a tenth of the slots are free again, so that a full task takes
   * records in bunches rather than one per finished call (each a section of the stream thread).
   */
  blocked = false;

  private get resumeAt(): number {
    const max = this.options.maxInFlight;
    return max - Math.max(1, Math.floor(max / 10));
  }

  submit(record: AnyRecord, input: InputRecord | undefined): void {
    const entry = new Entry(record, input, keyIdentity(record.key), this);
    this.size += 1;
    if (this.options.ordering === 'partition') this.order.push(entry);
    const tail = this.tails.get(entry.key);
    this.tails.set(entry.key, entry);
    if (tail !== undefined) tail.next = entry;
    else this.schedule(entry);
    if (!this.blocked && this.size >= this.options.maxInFlight) {
      this.blocked = true;
      this.host.changed(this);
    }
  }

  /** A running call's abort is observed: it is aborted if the lane abandons it. False: already abandoned. */
  watch(entry: Entry): boolean {
    if (entry.epoch !== this.epoch) return false;
    if (!entry.done) this.watchedCalls.add(entry);
    return true;
  }

  private schedule(entry: Entry): void {
    if (this.running < this.options.maxInFlight) this.start(entry);
    else this.ready.push(entry);
  }

  private start(entry: Entry): void {
    this.running += 1;
    entry.epoch = this.epoch;
    entry.started = this.host.now();
    let call: Promise<Outputs>;
    try {
      call = Promise.resolve(this.processor.process(entry.record, entry)) as Promise<Outputs>;
    } catch (error) {
      call = Promise.reject(error);
    }
    this.deadlines?.add(entry);
    call.then(
      (outputs) => {
        if (entry.epoch === this.epoch && !entry.done) this.settle(entry, outputs, undefined, false);
      },
      (error: unknown) => {
        if (entry.epoch === this.epoch && !entry.done)
          this.settle(entry, undefined, error ?? new Error('rejected'), false);
      },
    );
  }

  /** The deadline queue's verdict on a call still running at its deadline. */
  private timedOut(entry: Entry): void {
    const input = entry.input;
    const where = input === undefined ? '' : `on ${input.topic}-${input.partition} offset ${input.offset}`;
    const error = new AsyncTimeoutError(this.nodeName, this.options.timeoutMs!, where);
    this.stats.timeouts += 1;
    entry.abort(error);
    this.settle(entry, undefined, error, true);
  }

  private settle(entry: Entry, outputs: Outputs, error: unknown, timedOut: boolean): void {
    if (entry.watched) this.watchedCalls.delete(entry);
    this.running -= 1;
    const latency = this.host.now() - entry.started;
    this.stats.completed += 1;
    this.stats.latencyTotalMs += latency;
    if (latency > this.stats.latencyMaxMs) this.stats.latencyMaxMs = latency;
    this.host.called(latency, timedOut);
    entry.done = true;
    entry.outputs = outputs;
    entry.error = error;
    // The key's next record starts once this one's work (its store writes) is done.
    if (entry.next !== undefined) this.schedule(entry.next);
    else if (this.tails.get(entry.key) === entry) this.tails.delete(entry.key);
    if (this.options.ordering === 'key') this.release(entry);
    else this.releaseInOrder();
    while (this.running < this.options.maxInFlight && this.ready.length > 0) this.start(this.ready.shift()!);
  }

  /** ordering 'partition': releases the finished records at the head of the input order. */
  private releaseInOrder(): void {
    const order = this.order;
    let head = this.orderHead;
    while (head < order.length && order[head]!.done) this.release(order[head++]!);
    // A head index, not a slice per call (which copied up to maxInFlight entries per finished call).
    if (head === order.length) {
      this.order = [];
      head = 0;
    } else if (head >= 1_024 && head * 2 >= order.length) {
      this.order = order.slice(head);
      head = 0;
    }
    this.orderHead = head;
  }

  private release(entry: Entry): void {
    this.size -= 1;
    if (entry.error !== undefined) {
      if (!this.host.judge(entry.error, this.nodeName, entry.input, entry.record))
        this.host.fail(entry.error, this.nodeName, entry.input);
    } else if (entry.outputs != null) {
      this.host.emit(entry.input, this, entry.outputs);
      entry.outputs = undefined;
    }
    if (this.blocked && this.size <= this.resumeAt) {
      this.blocked = false;
      this.host.changed(this);
    } else if (this.size === 0) this.host.changed(this);
  }

  /** Forwards one record's results downstream (the host has set their record context). */
  forwardAll(outputs: Iterable<AnyRecord>): void {
    this.emitting = true;
    try {
      for (const record of outputs) this.forward(record);
    } finally {
      this.emitting = false;
    }
  }

  /** Forgets every record (rollback, close): their calls are aborted and their results ignored. */
  abandon(): void {
    this.epoch += 1;
    for (const entry of this.watchedCalls) entry.abort(new Error('the task abandoned the record'));
    this.watchedCalls.clear();
    this.deadlines?.clear();
    this.tails.clear();
    this.ready = [];
    this.order = [];
    this.orderHead = 0;
    this.running = 0;
    this.size = 0;
    this.blocked = false;
  }
}

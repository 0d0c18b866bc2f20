import { TopologyError } from '../errors.ts';
import type { Windowed } from '../windowed.ts';

/** What the suppression does when its buffer is over a bound: emit the oldest early, or fail. */
export type BufferFullStrategy = 'emit' | 'shut-down';

function requireBound(what: string, n: number): void {
  if (!Number.isSafeInteger(n) || n < 0) {
    throw new TopologyError(`BufferConfig.${what} must be a whole number >= 0, got ${n}`);
  }
}

/**
 * Kafka Streams' Suppressed.BufferConfig: how many records or bytes (Kafka Streams' estimate of
 * the buffer's memory) the suppression buffer may hold, what happens when it is full, and whether
 * the buffer has a changelog topic. Immutable; each `with*` gives a new config.
 */
export class BufferConfig {
  private constructor(
    readonly maxRecords: number,
    readonly maxBytes: number,
    readonly bufferFullStrategy: BufferFullStrategy,
    readonly loggingEnabled: boolean,
  ) {}

  /** No bound: never emits early (a strict config, for `untilWindowCloses`). */
  static unbounded(): StrictBufferConfig {
    return new BufferConfig(Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY, 'shut-down', true) as never;
  }

  /** At most `n` records; emits the oldest early when full (change with `shutDownWhenFull()`). */
  static maxRecords(n: number): EagerBufferConfig {
    requireBound('maxRecords', n);
    return new BufferConfig(n, Number.POSITIVE_INFINITY, 'emit', true) as never;
  }

  /** At most `n` bytes by Kafka Streams' size estimate; emits the oldest early when full. */
  static maxBytes(n: number): EagerBufferConfig {
    requireBound('maxBytes', n);
    return new BufferConfig(Number.POSITIVE_INFINITY, n, 'emit', true) as never;
  }

  withMaxRecords(n: number): this {
    requireBound('maxRecords', n);
    return new BufferConfig(n, this.maxBytes, this.bufferFullStrategy, this.loggingEnabled) as this;
  }

  withMaxBytes(n: number): this {
    requireBound('maxBytes', n);
    return new BufferConfig(this.maxRecords, n, this.bufferFullStrategy, this.loggingEnabled) as this;
  }

  withNoBound(): StrictBufferConfig {
    return new BufferConfig(
      Number.POSITIVE_INFINITY,
      Number.POSITIVE_INFINITY,
      'shut-down',
      this.loggingEnabled,
    ) as never;
  }

  /** When full, the app fails with an error rather than emit a result before its time. */
  shutDownWhenFull(): StrictBufferConfig {
    return new BufferConfig(this.maxRecords, this.maxBytes, 'shut-down', this.loggingEnabled) as never;
  }

  /** When full, the oldest records are emitted early until the buffer is within its bounds. */
  emitEarlyWhenFull(): EagerBufferConfig {
    return new BufferConfig(this.maxRecords, this.maxBytes, 'emit', this.loggingEnabled) as never;
  }

  /** No changelog: the buffer is lost on a restart (and results with it). */
  withLoggingDisabled(): this {
    return new BufferConfig(this.maxRecords, this.maxBytes, this.bufferFullStrategy, false) as this;
  }

  withLoggingEnabled(): this {
    return new BufferConfig(this.maxRecords, this.maxBytes, this.bufferFullStrategy, true) as this;
  }
}

/** A buffer config that never emits early (Kafka Streams' StrictBufferConfig). */
export type StrictBufferConfig = BufferConfig & { readonly bufferFullStrategy: 'shut-down' };
/** A buffer config that may emit early when full (Kafka Streams' EagerBufferConfig). */
export type EagerBufferConfig = BufferConfig & { readonly bufferFullStrategy: 'emit' };

/** Which time a buffered record waits on: its own timestamp, or its window's end. */
export type BufferTimeDefinition = 'record-time' | 'window-end';

/**
 * Kafka Streams' Suppressed: the configuration of `KTable.suppress`. `untilWindowCloses` emits one
 * final result per window once stream time reaches the window's end plus its grace;
 * `untilTimeLimit` holds each key's latest update for `ms` of stream time after its first one.
 */
// K is the key type the suppression applies to, as in Kafka Streams' Suppressed<K>.
export class Suppressed<K> {
  private constructor(
    readonly name: string | undefined,
    /** Undefined: the window's grace period (final results). */
    readonly timeToWaitForMoreEventsMs: number | undefined,
    readonly bufferConfig: BufferConfig,
    readonly timeDefinition: BufferTimeDefinition,
    /** Final results drop deletions of windows never emitted (Kafka Streams' safeToDropTombstones). */
    readonly safeToDropTombstones: boolean,
  ) {}

  /** Only the final result of each window, emitted when it closes. Windowed tables only. */
  static untilWindowCloses(bufferConfig: StrictBufferConfig): Suppressed<Windowed<unknown>> {
    if (bufferConfig?.bufferFullStrategy !== 'shut-down') {
      throw new TopologyError(
        'Suppressed.untilWindowCloses needs a strict buffer config: BufferConfig.unbounded() or ' +
          'BufferConfig.maxRecords(n).shutDownWhenFull() (an eager one could emit a result before its window closes)',
      );
    }
    return new Suppressed(undefined, undefined, bufferConfig, 'window-end', true);
  }

  /** Waits `timeToWaitForMoreEventsMs` of stream time after a key's first update before emitting. */
  static untilTimeLimit<K>(timeToWaitForMoreEventsMs: number, bufferConfig: BufferConfig): Suppressed<K> {
    if (!Number.isSafeInteger(timeToWaitForMoreEventsMs) || timeToWaitForMoreEventsMs < 0) {
      throw new TopologyError(
        `Suppressed.untilTimeLimit: the time limit must be a whole number of ms >= 0, got ${timeToWaitForMoreEventsMs}`,
      );
    }
    if (!(bufferConfig instanceof BufferConfig)) {
      throw new TopologyError(
        'Suppressed.untilTimeLimit needs a BufferConfig (BufferConfig.unbounded(), maxRecords(n) or maxBytes(n))',
      );
    }
    return new Suppressed(undefined, timeToWaitForMoreEventsMs, bufferConfig, 'record-time', false);
  }

  /** The name of the suppression processor; its buffer store is `<name>-store`. */
  withName(name: string): Suppressed<K> {
    if (typeof name !== 'string' || name.length === 0) {
      throw new TopologyError('Suppressed.withName needs a non-empty string');
    }
    return new Suppressed(
      name,
      this.timeToWaitForMoreEventsMs,
      this.bufferConfig,
      this.timeDefinition,
      this.safeToDropTombstones,
    );
  }
}

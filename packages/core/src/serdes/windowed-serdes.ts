import { SessionKeySchema, WindowKeySchema } from '@kstreams/state-store';
import { ConfigError, SerdeError } from '../errors.ts';
import type { Windowed } from '../windowed.ts';
import type { Serde } from './serde.ts';

function requireInner<K>(inner: Serde<K> | undefined): Serde<K> {
  if (inner === undefined)
    throw new ConfigError('A windowed key serde has no key serde: pass keySerde or set defaultKeySerde');
  return inner;
}

/**
 * Java's TimeWindowedSerde: `[key][window start: int64]`; the end is start + window size (which the
 * bytes do not carry, so the reader must know it). Without an inner serde, the config's default
 * key serde is used (the runtime fills it in).
 */
export class TimeWindowedSerde<K> implements Serde<Windowed<K>> {
  constructor(
    readonly inner: Serde<K> | undefined,
    readonly windowSizeMs: number,
  ) {
    if (!(windowSizeMs > 0))
      throw new ConfigError(
        `timeWindowedSerdeFrom: the window size must be a positive number of ms, got ${windowSizeMs}`,
      );
  }

  withInner(inner: Serde<K>): TimeWindowedSerde<K> {
    return new TimeWindowedSerde(inner, this.windowSizeMs);
  }

  serialize(data: Windowed<K>, topic?: string): Buffer {
    return WindowKeySchema.toWindowedKey(this.innerSerde().serialize(data.key, topic), data.window.start);
  }

  deserialize(data: Buffer, topic?: string): Windowed<K> {
    if (data.length < 8) throw new SerdeError(`A time-windowed key has at least 8 bytes, got ${data.length}`);
    const { key, windowStart } = WindowKeySchema.fromWindowedKey(data);
    // Java caps the end at Long.MAX_VALUE; a safe integer is as far as a number goes.
    const end = Math.min(windowStart + this.windowSizeMs, Number.MAX_SAFE_INTEGER);
    return { key: this.innerSerde().deserialize(key, topic), window: { start: windowStart, end } };
  }

  private innerSerde(): Serde<K> {
    return requireInner(this.inner);
  }
}

/** Java's SessionWindowedSerde: `[key][session end: int64][session start: int64]`. */
export class SessionWindowedSerde<K> implements Serde<Windowed<K>> {
  constructor(readonly inner: Serde<K> | undefined) {}

  withInner(inner: Serde<K>): SessionWindowedSerde<K> {
    return new SessionWindowedSerde(inner);
  }

  serialize(data: Windowed<K>, topic?: string): Buffer {
    return SessionKeySchema.toBinary(
      this.innerSerde().serialize(data.key, topic),
      data.window.start,
      data.window.end,
    );
  }

  deserialize(data: Buffer, topic?: string): Windowed<K> {
    if (data.length < 16)
      throw new SerdeError(`A session-windowed key has at least 16 bytes, got ${data.length}`);
    const { key, start, end } = SessionKeySchema.fromBinary(data);
    return { key: this.innerSerde().deserialize(key, topic), window: { start, end } };
  }

  private innerSerde(): Serde<K> {
    return requireInner(this.inner);
  }
}

/** Kafka Streams' WindowedSerdes: byte-compatible with Java's, so Java consumers read our windowed topics. */
export const WindowedSerdes = {
  timeWindowedSerdeFrom<K>(inner: Serde<K>, windowSizeMs: number): Serde<Windowed<K>> {
    return new TimeWindowedSerde(inner, windowSizeMs);
  },
  sessionWindowedSerdeFrom<K>(inner: Serde<K>): Serde<Windowed<K>> {
    return new SessionWindowedSerde(inner);
  },
} as const;

/** A windowed serde still waiting for the default key serde. */
export function withDefaultInner(
  serde: Serde<unknown>,
  defaultKeySerde: Serde<unknown> | undefined,
): Serde<unknown> {
  if (
    (serde instanceof TimeWindowedSerde || serde instanceof SessionWindowedSerde) &&
    serde.inner === undefined
  ) {
    return defaultKeySerde === undefined ? serde : serde.withInner(defaultKeySerde);
  }
  return serde;
}

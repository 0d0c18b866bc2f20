import type { TransactionalBuffer } from '../buffer/transactional-buffer.ts';
import { InvalidStoreArgumentError } from '../errors.ts';
import type { StoreSerde } from '../typed/typed-key-value-store.ts';
import type { LastWriteTracking } from '../types.ts';
import { SessionKeySchema } from './key-schema.ts';

/** A session window of one key (Kafka Streams' `Windowed<K>` over a `SessionWindow`); both ends inclusive. */
export interface SessionWindowedKey<K> {
  key: K;
  start: number;
  end: number;
}

export interface SessionEntry<K, AGG> {
  key: SessionWindowedKey<K>;
  value: AGG;
}

/** The typed session store processors use (Kafka Streams' `SessionStore` reads and writes). */
export interface SessionStore<K, AGG> {
  readonly name: string;
  /** A null or undefined aggregate removes the session. */
  put(sessionKey: SessionWindowedKey<K>, aggregate: AGG | null | undefined): void;
  remove(sessionKey: SessionWindowedKey<K>): void;
  fetchSession(key: K, sessionStartTime: number, sessionEndTime: number): AGG | undefined;
  /** Sessions of `key` with `end >= earliestSessionEndTime` and `start <= latestSessionStartTime`, by end then start. */
  findSessions(
    key: K,
    earliestSessionEndTime: number,
    latestSessionStartTime: number,
  ): AsyncIterableIterator<SessionEntry<K, AGG>>;
  backwardFindSessions(
    key: K,
    earliestSessionEndTime: number,
    latestSessionStartTime: number,
  ): AsyncIterableIterator<SessionEntry<K, AGG>>;
  /** Every session of `key`, by end then start. */
  fetch(key: K): AsyncIterableIterator<SessionEntry<K, AGG>>;
  backwardFetch(key: K): AsyncIterableIterator<SessionEntry<K, AGG>>;
}

const TIMESTAMP_SIZE = 8;
/** Long.MAX_VALUE as int64 big-endian: the open end of a scan. */
const MAX_LONG = Buffer.from([0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);

/**
 * A session store over a task's transactional buffer, keyed as Kafka Streams' session store and
 * changelog are: `[key][end][start]`. A scan for one key's sessions is one byte range from
 * `[key][earliestEnd][0]` to `[key][Long.MAX][Long.MAX]`; that range also holds the sessions of
 * longer keys that start with the same bytes, so entries are kept only if their key is exactly
 * the key asked for (Kafka Streams' hasNextCondition does the same).
 */
export class TypedSessionStore<K, AGG> implements SessionStore<K, AGG>, LastWriteTracking {
  readonly name: string;
  private readonly buffer: TransactionalBuffer;
  private readonly keySerde: StoreSerde<K>;
  private readonly aggSerde: StoreSerde<AGG>;

  constructor(name: string, buffer: TransactionalBuffer, keySerde: StoreSerde<K>, aggSerde: StoreSerde<AGG>) {
    this.name = name;
    this.buffer = buffer;
    this.keySerde = keySerde;
    this.aggSerde = aggSerde;
  }

  put(sessionKey: SessionWindowedKey<K>, aggregate: AGG | null | undefined): void {
    const storeKey = this.storeKey(sessionKey, 'put');
    if (aggregate === null || aggregate === undefined) this.buffer.delete(storeKey);
    else this.buffer.put(storeKey, this.aggSerde.serialize(aggregate));
  }

  remove(sessionKey: SessionWindowedKey<K>): void {
    this.buffer.delete(this.storeKey(sessionKey, 'remove'));
  }

  get lastWrittenId(): string | undefined {
    return this.buffer.lastWrittenId;
  }

  get lastWrittenBytes(): number {
    return this.buffer.lastWrittenBytes;
  }

  fetchSession(key: K, sessionStartTime: number, sessionEndTime: number): AGG | undefined {
    const bytes = this.buffer.get(
      this.storeKey({ key, start: sessionStartTime, end: sessionEndTime }, 'fetchSession'),
    );
    return bytes === undefined ? undefined : this.aggSerde.deserialize(bytes);
  }

  findSessions(
    key: K,
    earliestSessionEndTime: number,
    latestSessionStartTime: number,
  ): AsyncIterableIterator<SessionEntry<K, AGG>> {
    const keyBytes = this.keyBytes(key, 'findSessions');
    // Bounds may be negative (a session merger asks for `timestamp - inactivityGap`): clamped to 0.
    requireBoundTime(this.name, 'earliestSessionEndTime', earliestSessionEndTime);
    requireBoundTime(this.name, 'latestSessionStartTime', latestSessionStartTime);
    return this.scan(key, keyBytes, earliestSessionEndTime, latestSessionStartTime);
  }

  async *backwardFindSessions(
    key: K,
    earliestSessionEndTime: number,
    latestSessionStartTime: number,
  ): AsyncIterableIterator<SessionEntry<K, AGG>> {
    // The buffer iterates forward only; one key's sessions are few, so reverse them in memory.
    const sessions: SessionEntry<K, AGG>[] = [];
    for await (const session of this.findSessions(key, earliestSessionEndTime, latestSessionStartTime)) {
      sessions.push(session);
    }
    yield* sessions.reverse();
  }

  fetch(key: K): AsyncIterableIterator<SessionEntry<K, AGG>> {
    return this.findSessions(key, 0, Number.MAX_SAFE_INTEGER);
  }

  backwardFetch(key: K): AsyncIterableIterator<SessionEntry<K, AGG>> {
    return this.backwardFindSessions(key, 0, Number.MAX_SAFE_INTEGER);
  }

  private async *scan(
    key: K,
    keyBytes: Buffer,
    earliestSessionEndTime: number,
    latestSessionStartTime: number,
  ): AsyncIterableIterator<SessionEntry<K, AGG>> {
    const from = SessionKeySchema.toBinary(keyBytes, 0, Math.max(0, earliestSessionEndTime));
    const to = Buffer.concat([keyBytes, MAX_LONG, MAX_LONG]);
    const exactLength = keyBytes.length + 2 * TIMESTAMP_SIZE;
    for await (const entry of this.buffer.range(from, to)) {
      if (entry.key.length !== exactLength || !entry.key.subarray(0, keyBytes.length).equals(keyBytes))
        continue;
      const { start, end } = SessionKeySchema.fromBinary(entry.key);
      if (start > latestSessionStartTime) continue;
      yield { key: { key, start, end }, value: this.aggSerde.deserialize(entry.value) };
    }
  }

  private storeKey(sessionKey: SessionWindowedKey<K>, operation: string): Buffer {
    if (sessionKey === null || typeof sessionKey !== 'object') {
      throw new InvalidStoreArgumentError(
        `Session store "${this.name}": ${operation} needs a session key { key, start, end }, got ${sessionKey}.`,
      );
    }
    const { start, end } = sessionKey;
    requireTime(this.name, operation, 'start', start);
    requireTime(this.name, operation, 'end', end);
    if (start > end) {
      throw new InvalidStoreArgumentError(
        `Session store "${this.name}": ${operation} got a session that ends (${end}) before it starts (${start}); ` +
          'a session window needs start <= end.',
      );
    }
    return SessionKeySchema.toBinary(this.keyBytes(sessionKey.key, operation), start, end);
  }

  private keyBytes(key: K, operation: string): Buffer {
    if (key === null || key === undefined) {
      throw new InvalidStoreArgumentError(
        `Session store "${this.name}": ${operation} was called with a ${key} key; session keys must not be null or undefined.`,
      );
    }
    return this.keySerde.serialize(key);
  }
}

function requireTime(storeName: string, operation: string, field: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new InvalidStoreArgumentError(
      `Session store "${storeName}": ${operation} needs ${field} as a non-negative integer number of milliseconds, got ${value}.`,
    );
  }
}

function requireBoundTime(storeName: string, field: string, value: number): void {
  if (typeof value !== 'number' || Number.isNaN(value)) {
    throw new InvalidStoreArgumentError(
      `Session store "${storeName}": findSessions needs ${field} as a number of milliseconds, got ${value}.`,
    );
  }
}

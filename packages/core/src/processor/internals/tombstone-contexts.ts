// Kafka Streams 4.4 logs a headers-aware store's delete with the record context it happened under
// (ChangeLogging*WithHeaders: a null value gets the context's timestamp and headers), where
// kstreams' other stores stamp a tombstone with the commit's time. The changelog is written at the
// commit, from the buffer's pending changes, so each delete's record is kept here until then.
import type { WriteContext } from '../../query/store-position.ts';
import {
  type FetchedHeaders,
  fromStoreHeaders,
  toStoreHeaders,
} from '../../state/value-timestamp-headers.ts';

/** The task's current input record as a store write sees it (the task's record context). */
export interface WriteRecord extends WriteContext {
  readonly timestamp?: number;
  readonly headers?: FetchedHeaders;
}

/** What a tombstone of a headers-aware store's changelog carries beside its key. */
export interface TombstoneContext {
  readonly timestamp: number;
  /** Absent: the record had none. */
  readonly headers?: { readonly [name: string]: Buffer };
}

/** The record context of each key deleted since the last commit, for one headers-aware store. */
export class TombstoneContexts {
  private readonly byKey = new Map<string, TombstoneContext>();

  constructor(private readonly current: () => WriteRecord | undefined) {}

  /** A buffered put or delete of `key`; a later put of the key forgets its delete. */
  written(key: Buffer, value: Buffer | null): void {
    if (value !== null) {
      if (this.byKey.size > 0) this.byKey.delete(key.toString('latin1'));
      return;
    }
    const record = this.current();
    // A punctuator deletes without a record: its tombstone keeps the commit's time.
    if (record?.timestamp === undefined) return;
    const headers = fromStoreHeaders(toStoreHeaders(record.headers)) as TombstoneContext['headers'];
    const context: TombstoneContext =
      headers !== undefined && Object.keys(headers).length > 0
        ? { timestamp: record.timestamp, headers }
        : { timestamp: record.timestamp };
    this.byKey.set(key.toString('latin1'), context);
  }

  /** The record context of the delete of `key` since the last commit, if it had one. */
  of(key: Buffer): TombstoneContext | undefined {
    return this.byKey.size === 0 ? undefined : this.byKey.get(key.toString('latin1'));
  }

  /** After a commit or a rollback: the buffered deletes are gone. */
  clear(): void {
    this.byKey.clear();
  }
}

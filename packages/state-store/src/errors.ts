/** Base class of the errors this package throws on purpose. */
export class StateStoreError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The store's database directory is locked by another open database (LevelDB's LEVEL_LOCKED). */
export class StoreLockedError extends StateStoreError {
  readonly location: string;

  constructor(location: string, options?: { cause?: unknown }) {
    super(
      `State store directory ${location} is locked by another open database. Another kstreams instance ` +
        'probably uses the same stateDir: give each instance its own stateDir, or stop the other instance.',
      options,
    );
    this.location = location;
  }
}

/**
 * The disk under a store (or its checkpoint) is full: LevelDB's or the file system's "No space
 * left on device". The write was not kept; `location` is the directory (or file) it went to.
 */
export class StoreDiskFullError extends StateStoreError {
  readonly location: string;

  constructor(location: string, options?: { cause?: unknown }) {
    super(
      `No space left on device writing ${location}: the disk of the state directory is full. Free space ` +
        'there, or set stateDir to a disk with room; then restart. The write was not kept: the task ' +
        'restores what its stores miss from their changelogs.',
      options,
    );
    this.location = location;
  }

  /** `err` as a StoreDiskFullError when it is a disk-full failure of a write to `location`. */
  static wrap(err: unknown, location: string): unknown {
    const e = err as { code?: unknown; message?: unknown } | undefined;
    const full =
      e?.code === 'ENOSPC' || (typeof e?.message === 'string' && /no space left on device/i.test(e.message));
    return full ? new StoreDiskFullError(location, { cause: err }) : err;
  }
}

/** A store was used before `open()` or after `close()` (Kafka Streams' InvalidStateStoreException). */
export class StoreNotOpenError extends StateStoreError {
  readonly storeName: string;

  constructor(storeName: string) {
    super(
      `State store "${storeName}" is not open: call open() before using it, and do not use it after close().`,
    );
    this.storeName = storeName;
  }
}

/**
 * A persistent store holds values in another layout than the one it is opened with (a DSL store
 * after `dslStoreFormat` changed): its bytes would be misread.
 */
export class StoreFormatError extends StateStoreError {
  readonly location: string;

  constructor(storeName: string, location: string, recorded: string | undefined, wanted: string | undefined) {
    super(
      `State store "${storeName}" at ${location} holds values in the ${recorded ?? 'default'} format but is ` +
        `opened for the ${wanted ?? 'default'} format (was dslStoreFormat changed?). Its bytes would be ` +
        'misread: remove the local state (app.cleanUp() before start(), or delete that directory); the ' +
        'store restores from its changelog, whose records are the same in both formats.',
    );
    this.location = location;
  }
}

/** A caller passed a value this package cannot accept; the message says what to pass instead. */
export class InvalidStoreArgumentError extends StateStoreError {}

/** A changelog message that cannot be a store change (for example a null key). */
export class InvalidChangelogRecordError extends StateStoreError {}

/** `StoreRestorer` methods were called out of order. */
export class StoreRestoreError extends StateStoreError {}

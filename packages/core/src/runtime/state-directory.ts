// Kafka Streams' StateDirectory: the application's folder `<stateDir>/<applicationId>`, locked by
// the instance that runs (a lock file, so that a second process on the same folder fails at start),
// its task folders locked by the task that has them open, and cleanUp().
//
// Task folders are locked in memory, as Kafka Streams does since 2.8: the application lock already
// keeps every other process out, so what remains is two tasks of this process with one id (one
// closing while the next opens); a lock file per task would add file writes to every task creation
// and guard nothing more.
import { mkdirSync, readdirSync, rmdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { StateDirectoryLockedError, StreamsError } from '../errors.ts';
import {
  acquireDirectoryLock,
  type DirectoryLock,
  DirectoryLockedError,
  describeOwner,
  LOCK_FILE_NAME,
} from './directory-lock.ts';

export class StateDirectory {
  readonly appDir: string;
  private appLock?: DirectoryLock;

  constructor(
    stateDir: string,
    applicationId: string,
    private readonly logger: Logger,
  ) {
    this.appDir = join(stateDir, applicationId);
  }

  get locked(): boolean {
    return this.appLock !== undefined;
  }

  /** Locks the application's folder for this instance; throws StateDirectoryLockedError if another has it. */
  lock(): void {
    if (this.appLock) return;
    mkdirSync(this.appDir, { recursive: true });
    try {
      this.appLock = acquireDirectoryLock(this.appDir);
    } catch (error) {
      if (!(error instanceof DirectoryLockedError)) throw error;
      throw new StateDirectoryLockedError(this.appDir, error.owner.pid, describeOwner(error.owner));
    }
    const dead = this.appLock.tookOverFrom;
    if (dead)
      this.logger.info(
        { stateDir: this.appDir, previousPid: dead.pid, previousHost: dead.hostname },
        'took over the state directory lock of a process that is no longer running',
      );
  }

  unlock(): void {
    this.appLock?.release();
    this.appLock = undefined;
  }

  /**
   * Deletes the application's local state (every task folder and the global stores), as Kafka
   * Streams' cleanUp(): the next start restores the stores from their changelogs. Refused while
   * another process holds the folder.
   */
  cleanUp(): void {
    const wasLocked = this.locked;
    this.lock();
    try {
      for (const entry of readdirSync(this.appDir)) {
        if (entry !== LOCK_FILE_NAME) rmSync(join(this.appDir, entry), { recursive: true, force: true });
      }
      this.logger.info({ stateDir: this.appDir }, 'deleted the local state (cleanUp)');
    } finally {
      if (!wasLocked) this.unlock();
    }
    if (!wasLocked) {
      try {
        rmdirSync(this.appDir);
      } catch {
        // not empty: another instance locked it in between
      }
    }
  }
}

/** A task folder is open in another task of this process (retried, as Kafka Streams' LockException). */
export class TaskDirectoryLockedError extends StreamsError {
  readonly retriable = true;
}

/** The checkpoint in a task's folder (the state-store package's format). */
export const CHECKPOINT_FILE_NAME = '.checkpoint';

/** A task's folder, `<stateDir>/<applicationId>/<taskId>`: its active and its standby share it. */
export function taskDirectory(config: { stateDir: string; applicationId: string }, taskId: string): string {
  return join(config.stateDir, config.applicationId, taskId);
}

const taskOwners = new Map<string, object>();

/** Locks a task's folder for `owner` (the task that opens its stores); released by `unlockTaskDirectory`. */
export function lockTaskDirectory(dir: string, owner: object, taskId: string): void {
  const current = taskOwners.get(dir);
  if (current !== undefined && current !== owner)
    throw new TaskDirectoryLockedError(
      `Task ${taskId}: its state directory ${dir} is still open by an earlier instance of the task; retrying`,
    );
  taskOwners.set(dir, owner);
}

export function unlockTaskDirectory(dir: string, owner: object): void {
  if (taskOwners.get(dir) === owner) taskOwners.delete(dir);
}

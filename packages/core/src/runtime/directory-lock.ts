// A lock file that keeps a directory to one process, as Kafka Streams' StateDirectory locks the
// application's state directory (its `.lock` file) so that two instances never share stores and
// checkpoints.
//
// Java holds an OS file lock (FileChannel.tryLock), which the OS drops when the process dies.
// Node has no flock, so the lock is a file naming its holder: written whole to a temporary file,
// then link(2)ed to the lock's name, which fails while a lock exists, so a reader never sees half a
// file. A lock whose holder is dead is taken over. proper-lockfile was considered: it judges
// staleness only by a modification time its holder refreshes, so a SIGKILLed holder blocks the
// next start for its stale period and every holder runs a timer. Here a holder on this host is
// known dead at once from its pid (kill(pid, 0)), its process start time (/proc, so a pid reused
// by another process does not keep the lock) and, for our own pid, whether this process holds
// the lock (a container restarted on its volume gets the same pid). Only a lock written from
// another host (a state directory on a shared volume) falls back to a refresh time.
import { linkSync, readFileSync, renameSync, statSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

export const LOCK_FILE_NAME = '.lock';
/** How often a holder touches its lock files, for readers on other hosts. */
const REFRESH_MS = 10_000;
/** A lock from another host not touched for this long is stale. */
export const OTHER_HOST_STALE_MS = 3 * REFRESH_MS;

export interface LockOwner {
  pid: number;
  hostname: string;
  /** The holder's start time in clock ticks since boot (/proc/<pid>/stat), where /proc exists. */
  startTime?: string | undefined;
  acquiredAt: string;
}

/** The lock is held by a live process (this one, or another). */
export class DirectoryLockedError extends Error {
  constructor(
    readonly directory: string,
    readonly owner: LockOwner,
  ) {
    super(`${directory} is locked by ${describeOwner(owner)}`);
    this.name = new.target.name;
  }
}

export function describeOwner(owner: LockOwner): string {
  const self = owner.pid === process.pid && owner.hostname === hostname();
  return `${self ? 'this process' : 'process'} (pid ${owner.pid} on ${owner.hostname}, since ${owner.acquiredAt})`;
}

/** The lock files this process holds: our own pid in a lock file means "held" only if listed here. */
const held = new Set<string>();
let refresher: NodeJS.Timeout | undefined;

export interface DirectoryLock {
  readonly path: string;
  /** What the lock file said when a dead holder's lock was taken over. */
  readonly tookOverFrom: LockOwner | undefined;
  release(): void;
}

/**
 * Takes the lock of `directory` (which must exist) or throws DirectoryLockedError naming the live
 * holder. A lock left by a dead process is taken over.
 */
export function acquireDirectoryLock(directory: string): DirectoryLock {
  const path = join(directory, LOCK_FILE_NAME);
  if (held.has(path)) throw new DirectoryLockedError(directory, readOwner(path) ?? me());
  let tookOverFrom: LockOwner | undefined;
  for (let attempt = 0; ; attempt++) {
    if (tryCreate(path)) break;
    if (attempt >= 10) throw new Error(`${path}: could not take the lock (it keeps changing)`);
    const owner = readOwner(path);
    if (owner === undefined) continue; // released meanwhile: try again
    if (isLive(owner, path) || attempt >= 3) throw new DirectoryLockedError(directory, owner);
    takeOver(path, owner);
    tookOverFrom = owner;
  }
  held.add(path);
  refresher ??= setInterval(refreshHeld, REFRESH_MS).unref();
  let released = false;
  return {
    path,
    tookOverFrom,
    release() {
      if (released) return;
      released = true;
      held.delete(path);
      try {
        unlinkSync(path);
      } catch {
        // already gone (the directory was deleted)
      }
      if (held.size === 0 && refresher !== undefined) {
        clearInterval(refresher);
        refresher = undefined;
      }
    },
  };
}

function me(): LockOwner {
  return {
    pid: process.pid,
    hostname: hostname(),
    startTime: processStartTime(process.pid),
    acquiredAt: new Date().toISOString(),
  };
}

function tryCreate(path: string): boolean {
  const temp = `${path}.${process.pid}.${Date.now()}.tmp`;
  writeFileSync(temp, `${JSON.stringify(me())}\n`);
  try {
    linkSync(temp, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    unlinkSync(temp);
  }
}

/** undefined: no lock file (any more), or one that is not a lock this code wrote. */
function readOwner(path: string): LockOwner | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const owner = JSON.parse(text) as LockOwner;
    if (typeof owner.pid === 'number' && typeof owner.hostname === 'string') return owner;
  } catch {
    // garbled (written by something else): treated as a dead holder's
  }
  return { pid: -1, hostname: hostname(), acquiredAt: 'unknown' };
}

function isLive(owner: LockOwner, path: string): boolean {
  if (owner.hostname !== hostname()) {
    try {
      return Date.now() - statSync(path).mtimeMs < OTHER_HOST_STALE_MS;
    } catch {
      return false;
    }
  }
  if (owner.pid === process.pid) return held.has(path);
  if (owner.pid <= 0) return false;
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    // EPERM: alive, run by another user.
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
  }
  const startTime = processStartTime(owner.pid);
  return owner.startTime === undefined || startTime === undefined || startTime === owner.startTime;
}

/**
 * Moves the dead holder's lock aside (rename is atomic: of two processes taking over at once, one
 * moves it and the other finds none), then checks that what moved is the lock judged dead; if a
 * live lock was moved instead (taken in between), it is put back.
 */
function takeOver(path: string, dead: LockOwner): void {
  const aside = `${path}.${process.pid}.stale`;
  try {
    renameSync(path, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  const moved = readOwner(aside);
  if (moved !== undefined && (moved.pid !== dead.pid || moved.acquiredAt !== dead.acquiredAt)) {
    try {
      linkSync(aside, path);
    } catch {
      // another lock exists again; the caller's next try sees it
    }
  }
  unlinkSync(aside);
}

function refreshHeld(): void {
  const now = new Date();
  for (const path of held) {
    try {
      utimesSync(path, now, now);
    } catch {
      // the directory was removed under us; nothing to refresh
    }
  }
}

/** Field 22 of /proc/<pid>/stat (after the command name, which may hold spaces); Linux only. */
export function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

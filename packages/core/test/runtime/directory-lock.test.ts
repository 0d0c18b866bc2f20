import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { bundleEntry } from '../../../../scripts/test/bundle.ts';
import { StateDirectoryLockedError } from '../../src/errors.ts';
import { isRetriableError } from '../../src/kafka/error-kinds.ts';
import {
  acquireDirectoryLock,
  DirectoryLockedError,
  LOCK_FILE_NAME,
  OTHER_HOST_STALE_MS,
  processStartTime,
} from '../../src/runtime/directory-lock.ts';
import {
  lockTaskDirectory,
  StateDirectory,
  TaskDirectoryLockedError,
  unlockTaskDirectory,
} from '../../src/runtime/state-directory.ts';

const tempDir = () => mkdtempSync(join(tmpdir(), 'kstreams-lock-'));
const silent = pino({ level: 'silent' });
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

/** A pid that belonged to a process which has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0']);
  await once(child, 'exit');
  return child.pid!;
}

function writeLock(dir: string, owner: object): void {
  writeFileSync(join(dir, LOCK_FILE_NAME), JSON.stringify(owner));
}

describe('acquireDirectoryLock', () => {
  it('keeps a directory to one holder in this process, until released', () => {
    const dir = tempDir();
    const lock = acquireDirectoryLock(dir);
    const owner = JSON.parse(readFileSync(join(dir, LOCK_FILE_NAME), 'utf8'));
    expect(owner).toMatchObject({ pid: process.pid, hostname: hostname() });
    expect(() => acquireDirectoryLock(dir)).toThrow(DirectoryLockedError);
    expect(() => acquireDirectoryLock(dir)).toThrow(`this process (pid ${process.pid}`);
    lock.release();
    expect(existsSync(join(dir, LOCK_FILE_NAME))).toBe(false);
    acquireDirectoryLock(dir).release();
  });

  it('takes over the lock of a process that is no longer running', async () => {
    const dir = tempDir();
    const pid = await deadPid();
    writeLock(dir, { pid, hostname: hostname(), acquiredAt: '2026-12-05T00:00:00.000Z' });
    const lock = acquireDirectoryLock(dir);
    expect(lock.tookOverFrom?.pid).toBe(pid);
    expect(JSON.parse(readFileSync(lock.path, 'utf8')).pid).toBe(process.pid);
    lock.release();
  });

  it('takes over a lock with our own pid that this process does not hold (a restarted container)', () => {
    const dir = tempDir();
    writeLock(dir, { pid: process.pid, hostname: hostname(), acquiredAt: 'earlier' });
    const lock = acquireDirectoryLock(dir);
    expect(lock.tookOverFrom?.acquiredAt).toBe('earlier');
    lock.release();
  });

  it('refuses a live process, and takes over when its pid now belongs to a later process', async () => {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 60000)']);
    children.push(child);
    await once(child, 'spawn');
    const dir = tempDir();
    const startTime = processStartTime(child.pid!);
    writeLock(dir, { pid: child.pid, hostname: hostname(), startTime, acquiredAt: 'x' });
    expect(() => acquireDirectoryLock(dir)).toThrow(`process (pid ${child.pid} on ${hostname()}`);
    if (startTime === undefined) return; // no /proc: pid reuse cannot be told
    writeLock(dir, { pid: child.pid, hostname: hostname(), startTime: `${startTime}1`, acquiredAt: 'x' });
    acquireDirectoryLock(dir).release();
  });

  it('judges a lock from another host by how recently its holder refreshed it', () => {
    const dir = tempDir();
    writeLock(dir, { pid: 1, hostname: 'elsewhere', acquiredAt: 'x' });
    expect(() => acquireDirectoryLock(dir)).toThrow('pid 1 on elsewhere');
    const old = new Date(Date.now() - OTHER_HOST_STALE_MS - 1_000);
    utimesSync(join(dir, LOCK_FILE_NAME), old, old);
    const lock = acquireDirectoryLock(dir);
    expect(lock.tookOverFrom?.hostname).toBe('elsewhere');
    lock.release();
  });
});

describe('StateDirectory', () => {
  it('a second process on the same state directory is refused naming the holder, and takes over once it is SIGKILLed', async () => {
    const stateDir = tempDir();
    const script = await bundleEntry(join(import.meta.dirname, 'fixtures', 'lock-holder.ts'));
    const child = spawn(process.execPath, [script], {
      env: { ...process.env, STATE_DIR: stateDir, APPLICATION_ID: 'app' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(child);
    const [line] = await once(child.stdout!, 'data');
    expect(String(line)).toBe('locked\n');
    const mine = new StateDirectory(stateDir, 'app', silent);
    let refusal: unknown;
    try {
      mine.lock();
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(StateDirectoryLockedError);
    expect((refusal as StateDirectoryLockedError).ownerPid).toBe(child.pid);
    expect((refusal as Error).message).toMatch(
      /^Unable to initialize state, this can happen if multiple instances of Kafka Streams are running in the same state directory: .*app is locked by process \(pid \d+/,
    );
    expect(() => mine.cleanUp()).toThrow(StateDirectoryLockedError);
    child.kill('SIGKILL');
    await once(child, 'exit');
    mine.lock();
    expect(mine.locked).toBe(true);
    mine.unlock();
  });

  it('cleanUp deletes the application folder and keeps other applications', () => {
    const stateDir = tempDir();
    mkdirSync(join(stateDir, 'app', '0_0', 'counts'), { recursive: true });
    writeFileSync(join(stateDir, 'app', '0_0', '.checkpoint'), 'x');
    mkdirSync(join(stateDir, 'other', '0_0'), { recursive: true });
    new StateDirectory(stateDir, 'app', silent).cleanUp();
    expect(existsSync(join(stateDir, 'app'))).toBe(false);
    expect(existsSync(join(stateDir, 'other', '0_0'))).toBe(true);
  });
});

describe('task directory locks', () => {
  it('keep a task folder to one task of the process; the conflict is retried', () => {
    const first = {};
    const second = {};
    lockTaskDirectory('/s/app/0_0', first, '0_0');
    lockTaskDirectory('/s/app/0_0', first, '0_0');
    let conflict: unknown;
    try {
      lockTaskDirectory('/s/app/0_0', second, '0_0');
    } catch (error) {
      conflict = error;
    }
    expect(conflict).toBeInstanceOf(TaskDirectoryLockedError);
    expect(isRetriableError(conflict)).toBe(true);
    unlockTaskDirectory('/s/app/0_0', second); // not the holder: no effect
    expect(() => lockTaskDirectory('/s/app/0_0', second, '0_0')).toThrow(TaskDirectoryLockedError);
    unlockTaskDirectory('/s/app/0_0', first);
    lockTaskDirectory('/s/app/0_0', second, '0_0');
    unlockTaskDirectory('/s/app/0_0', second);
  });
});

// The state directory is checked when the app starts, before any topic is created: a path that is
// a file, or a directory the process cannot write, would otherwise fail each task as it opens
// its stores, after the internal topics were made and the group joined.
import { accessSync, constants, mkdirSync, statSync } from 'node:fs';
import { ConfigError } from '../errors.ts';

export function checkStateDir(stateDir: string): void {
  const fix = 'set "stateDir" to a directory this process can write';
  let isDirectory: boolean;
  try {
    isDirectory = statSync(stateDir).isDirectory();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw stateDirError(stateDir, error, fix);
    try {
      mkdirSync(stateDir, { recursive: true });
    } catch (mkdirError) {
      throw stateDirError(stateDir, mkdirError, fix);
    }
    isDirectory = true;
  }
  if (!isDirectory) throw new ConfigError(`"stateDir" ${stateDir} is a file, not a directory: ${fix}`);
  try {
    accessSync(stateDir, constants.W_OK | constants.X_OK);
  } catch (error) {
    throw stateDirError(stateDir, error, fix);
  }
}

function stateDirError(stateDir: string, error: unknown, fix: string): ConfigError {
  const e = error as NodeJS.ErrnoException;
  const reason =
    e.code === 'EACCES' || e.code === 'EPERM'
      ? 'is not writable'
      : e.code === 'ENOTDIR'
        ? 'lies under a file'
        : `cannot be created (${e.code ?? e.message})`;
  return new ConfigError(`"stateDir" ${stateDir} ${reason}: ${fix}`, { cause: error });
}

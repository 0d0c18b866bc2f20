// The packed packages, built and packed once per `vitest run` and shared by the test files that
// install them as a user would (the consumer test and the starter's): a build and pack took 16-17 s
// of each file in the full run of 2026-12-06. pack-setup.ts (a globalSetup of the integration
// project) provides an empty folder for the run; the first file to ask packs into it, later ones
// read the tarballs' paths it left there. The tarballs are the ones `pnpm pack` writes, as before.
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inject } from 'vitest';
import { type PublishedName, packAll } from '../pack/pack-all.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Where this run's packed packages go (made by scripts/test/pack-setup.ts). */
    packDir: string;
  }
}

const LOCK_WAIT_MS = 600_000;

/**
 * The tarballs' absolute paths, by package name: packed (with a build of dist/ first, unless
 * KSTREAMS_PACK_BUILD=0) by the first caller in this run, the same files for every later one.
 */
export function packedTarballs(): Record<PublishedName, string> {
  const dir = inject('packDir');
  if (!dir)
    throw new Error('no packDir: run this test in the integration project (scripts/test/pack-setup.ts)');
  const index = join(dir, 'tarballs.json');
  return withLock(join(dir, 'lock'), () => {
    try {
      return JSON.parse(readFileSync(index, 'utf8')) as Record<PublishedName, string>;
    } catch {
      const tarballs = packAll(join(dir, 'tarballs'), { build: process.env.KSTREAMS_PACK_BUILD !== '0' });
      writeFileSync(`${index}.tmp`, JSON.stringify(tarballs));
      renameSync(`${index}.tmp`, index);
      return tarballs;
    }
  });
}

/**
 * Runs `step` holding a lock folder: integration files run one at a time today, but a run with
 * file parallelism must not build dist/ twice at once (the build removes dist/ first).
 */
function withLock<T>(lock: string, step: () => T): T {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (Date.now() > deadline) throw new Error(`${lock} held for ${LOCK_WAIT_MS / 1000} s: remove it`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    }
  }
  try {
    return step();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

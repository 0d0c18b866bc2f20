import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LevelKeyValueStore, readCheckpoint } from '../src/index.ts';
import { CHANGELOG, expectedContents } from './fixtures/crash-batches.ts';
import { tempDir } from './helpers.ts';

const writerScript = fileURLToPath(new URL('./fixtures/crash-writer.ts', import.meta.url));
const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

interface Run {
  location: string;
  checkpointFile: string;
  committedLines: number;
}

/** Runs the writer until it prints `killAt` (a line prefix), waits `delayMs`, then SIGKILLs it. */
async function runAndKill(
  dir: string,
  args: {
    batches: number;
    keysPerBatch: number;
    mode: 'pending' | 'mid-commit';
    killAt: string;
    delayMs: number;
  },
): Promise<Run> {
  const location = join(dir, 'app', '0_0', 'crash');
  const checkpointFile = join(dir, 'app', '0_0', '.checkpoint');
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      writerScript,
      location,
      checkpointFile,
      String(args.batches),
      String(args.keysPerBatch),
      args.mode,
    ],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let committedLines = 0;
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  await new Promise<void>((resolve, reject) => {
    let pending = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        if (line.startsWith('committed ')) committedLines++;
        if (line.startsWith(args.killAt)) {
          setTimeout(() => kill(child), args.delayMs);
          resolve();
        }
      }
    });
    exited.then(({ code }) =>
      reject(new Error(`writer exited (code ${code}) before "${args.killAt}":\n${stderr}`)),
    );
  });
  const { signal } = await exited;
  expect(signal).toBe('SIGKILL');
  return { location, checkpointFile, committedLines };
}

function kill(child: ChildProcess): void {
  child.kill('SIGKILL');
}

async function readStore(location: string): Promise<Map<string, string>> {
  const store = new LevelKeyValueStore({ name: 'crash', location });
  await store.open();
  try {
    const contents = new Map<string, string>();
    for await (const { key, value } of store.all()) contents.set(key.toString(), value.toString());
    return contents;
  } finally {
    await store.close();
  }
}

describe('crash safety (SIGKILL of a writer process)', () => {
  let dir: string;
  let remove: () => Promise<void>;

  beforeEach(async () => {
    ({ dir, remove } = await tempDir('kstreams-crash-'));
  });

  afterEach(() => remove());

  it.each([1, 3, 6])(
    'after %i committed batches and a pending buffer, the store holds exactly the committed batches',
    async (batches) => {
      const keysPerBatch = 2000;
      const run = await runAndKill(dir, {
        batches,
        keysPerBatch,
        mode: 'pending',
        killAt: 'pending',
        delayMs: 0,
      });
      expect(run.committedLines).toBe(batches);
      expect(await readCheckpoint(run.checkpointFile)).toEqual([{ ...CHANGELOG, offset: batches }]);
      expect(await readStore(run.location)).toEqual(expectedContents(batches, keysPerBatch));
    },
  );

  // The commit of a 30k-key batch takes ~100 ms here: the delays spread the kill over building
  // the batch, writing it, writing the checkpoint, and after.
  it.each([
    { batches: 2, delayMs: 0 },
    { batches: 3, delayMs: 30 },
    { batches: 2, delayMs: 60 },
    { batches: 3, delayMs: 100 },
    { batches: 2, delayMs: 150 },
    { batches: 3, delayMs: 300 },
  ])(
    'killed while committing batch $batches ($delayMs ms in), the batch is all there or not at all',
    async ({ batches, delayMs }) => {
      const keysPerBatch = 30_000;
      const run = await runAndKill(dir, {
        batches,
        keysPerBatch,
        mode: 'mid-commit',
        killAt: 'committing',
        delayMs,
      });
      const checkpoint = await readCheckpoint(run.checkpointFile);
      expect(checkpoint).toHaveLength(1);
      const checkpointed = checkpoint[0]!.offset;
      expect(checkpointed).toBeGreaterThanOrEqual(batches - 1);
      expect(checkpointed).toBeLessThanOrEqual(batches);
      const contents = await readStore(run.location);
      // The store may be one batch ahead of its checkpoint (killed between the batch and the
      // checkpoint write): restore then replays that batch, which is idempotent. Never behind.
      const applied = contents.get('last-batch');
      expect([String(checkpointed), String(checkpointed + 1)]).toContain(applied);
      expect(Number(applied)).toBeLessThanOrEqual(batches);
      expect(contents).toEqual(expectedContents(Number(applied), keysPerBatch));
    },
  );
});

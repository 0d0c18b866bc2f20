import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InvalidStoreArgumentError, readCheckpoint, writeCheckpoint } from '../src/index.ts';
import { tempDir } from './helpers.ts';

describe('checkpoint file', () => {
  let dir: string;
  let remove: () => Promise<void>;
  let file: string;

  beforeEach(async () => {
    ({ dir, remove } = await tempDir());
    file = join(dir, '.checkpoint');
  });

  afterEach(() => remove());

  const entries = [
    { topic: 'app-counts-changelog', partition: 3, offset: 1234567 },
    { topic: 'app-other-changelog', partition: 0, offset: 0 },
  ];

  it('round-trips entries', async () => {
    await writeCheckpoint(file, entries);
    expect(await readCheckpoint(file)).toEqual(entries);
  });

  it('replaces the previous checkpoint and leaves no temp file behind', async () => {
    await writeCheckpoint(file, entries);
    await writeCheckpoint(file, [{ topic: 't', partition: 1, offset: 9 }]);
    expect(await readCheckpoint(file)).toEqual([{ topic: 't', partition: 1, offset: 9 }]);
    expect(await readdir(dir)).toEqual(['.checkpoint']);
  });

  it('writes a versioned format', async () => {
    await writeCheckpoint(file, entries);
    expect(JSON.parse(await readFile(file, 'utf8')).version).toBe(1);
  });

  it('reads a missing file as "restore from the beginning"', async () => {
    expect(await readCheckpoint(join(dir, 'missing'))).toEqual([]);
  });

  it('reads an empty file as []', async () => {
    await writeFile(file, '');
    expect(await readCheckpoint(file)).toEqual([]);
  });

  it('reads every torn prefix of a checkpoint as []', async () => {
    await writeCheckpoint(file, entries);
    const whole = await readFile(file, 'utf8');
    // Drop the trailing newline first: a file that lost only that is still complete.
    const body = whole.trimEnd();
    for (let length = 0; length < body.length; length++) {
      await writeFile(file, body.slice(0, length));
      expect(await readCheckpoint(file)).toEqual([]);
    }
  });

  it('reads a file of another version or shape as []', async () => {
    await writeFile(file, JSON.stringify({ version: 2, entries }));
    expect(await readCheckpoint(file)).toEqual([]);
    await writeFile(
      file,
      JSON.stringify({ version: 1, entries: [{ topic: 't', partition: -1, offset: 0 }] }),
    );
    expect(await readCheckpoint(file)).toEqual([]);
    await writeFile(file, '0\n1\nt 0 5\n');
    expect(await readCheckpoint(file)).toEqual([]);
    await writeFile(file, Buffer.from([0xff, 0x00, 0x13]));
    expect(await readCheckpoint(file)).toEqual([]);
  });

  it('rejects invalid entries on write, keeping the old checkpoint', async () => {
    await writeCheckpoint(file, entries);
    await expect(writeCheckpoint(file, [{ topic: 't', partition: 0, offset: -5 }])).rejects.toThrow(
      InvalidStoreArgumentError,
    );
    await expect(writeCheckpoint(file, [{ topic: '', partition: 0, offset: 1 }])).rejects.toThrow(
      /non-empty topic/,
    );
    expect(await readCheckpoint(file)).toEqual(entries);
  });

  it('still throws for I/O errors that need an operator', async () => {
    await expect(readCheckpoint(dir)).rejects.toMatchObject({ code: 'EISDIR' });
  });
});

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KeyValue } from '../src/index.ts';

export const b = (text: string): Buffer => Buffer.from(text);

/** Creates a temp directory for one test and returns it with its cleanup. */
export async function tempDir(
  prefix = 'kstreams-state-store-',
): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** Drains an iterator into `key=value` strings (keys and values as UTF-8) for readable assertions. */
export async function entries(iterator: AsyncIterable<KeyValue>): Promise<string[]> {
  const out: string[] = [];
  for await (const { key, value } of iterator) out.push(`${key.toString()}=${value.toString()}`);
  return out;
}

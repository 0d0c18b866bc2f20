import { open, readFile, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { InvalidStoreArgumentError, StoreDiskFullError } from '../errors.ts';
import type { TopicPartition } from '../types.ts';

/** `offset` is the next changelog offset to read: everything before it is in the local store. */
export interface CheckpointEntry extends TopicPartition {
  offset: number;
}

/**
 * Version 1 is one JSON document: `{"version":1,"entries":[{"topic","partition","offset"}...]}`.
 * JSON rather than Kafka's line format because a file cut short can never parse, whereas a line
 * format cut inside the last offset still looks whole.
 */
const CHECKPOINT_VERSION = 1;

/**
 * Reads a task checkpoint. A missing, empty, torn or unknown-version file returns `[]`, which
 * means "restore from the beginning of the changelog": slower, never wrong. Other I/O errors
 * (permissions, a directory in the way) still throw, since they need the operator.
 */
export async function readCheckpoint(file: string): Promise<CheckpointEntry[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  return parseCheckpoint(text) ?? [];
}

/** Writes a task checkpoint atomically: temp file, fsync, rename over the old one, fsync the directory. */
export async function writeCheckpoint(file: string, entries: readonly CheckpointEntry[]): Promise<void> {
  validateEntries(file, entries);
  const document = {
    version: CHECKPOINT_VERSION,
    entries: entries.map(({ topic, partition, offset }) => ({ topic, partition, offset })),
  };
  const dir = dirname(file);
  const temp = join(dir, `.${basename(file)}.${process.pid}.tmp`);
  const handle = await open(temp, 'w').catch((err: unknown) => {
    throw StoreDiskFullError.wrap(err, temp);
  });
  try {
    await handle.writeFile(`${JSON.stringify(document)}\n`, 'utf8');
    await handle.sync();
  } catch (err) {
    await handle.close();
    await unlink(temp).catch(() => {});
    // The old checkpoint stays: it never claims more than the stores hold.
    throw StoreDiskFullError.wrap(err, file);
  }
  await handle.close();
  await rename(temp, file);
  // The rename is durable only once the directory entry is.
  const dirHandle = await open(dir, 'r');
  try {
    await dirHandle.sync();
  } finally {
    await dirHandle.close();
  }
}

function parseCheckpoint(text: string): CheckpointEntry[] | undefined {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof document !== 'object' || document === null) return undefined;
  const { version, entries } = document as { version?: unknown; entries?: unknown };
  if (version !== CHECKPOINT_VERSION || !Array.isArray(entries)) return undefined;
  const parsed: CheckpointEntry[] = [];
  for (const entry of entries) {
    if (!isEntry(entry)) return undefined;
    parsed.push({ topic: entry.topic, partition: entry.partition, offset: entry.offset });
  }
  return parsed;
}

function isEntry(entry: unknown): entry is CheckpointEntry {
  if (typeof entry !== 'object' || entry === null) return false;
  const { topic, partition, offset } = entry as Record<string, unknown>;
  return (
    typeof topic === 'string' &&
    topic.length > 0 &&
    isNonNegativeInteger(partition) &&
    isNonNegativeInteger(offset)
  );
}

function isNonNegativeInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function validateEntries(file: string, entries: readonly CheckpointEntry[]): void {
  if (!Array.isArray(entries)) {
    throw new InvalidStoreArgumentError(
      `Checkpoint ${file}: entries must be an array of { topic, partition, offset }.`,
    );
  }
  for (const entry of entries) {
    if (!isEntry(entry)) {
      throw new InvalidStoreArgumentError(
        `Checkpoint ${file}: invalid entry ${JSON.stringify(entry)}; each entry needs a non-empty topic and ` +
          'a partition and offset that are non-negative integers (offset = next changelog offset to read).',
      );
    }
  }
}

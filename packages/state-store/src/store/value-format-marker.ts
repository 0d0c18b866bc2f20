// A persistent store's value layout, recorded beside its database: the values of a headers-aware
// store (Kafka Streams' ValueTimestampHeaders) and of a timestamped one are both bytes, and one
// read as the other gives wrong timestamps and values without an error. So a store opened in
// another layout than the one its entries were written in refuses to open.
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { StoreFormatError } from '../errors.ts';

/** The file in the database directory that names a non-default layout (absent: the default). */
export const VALUE_FORMAT_FILE = 'KSTREAMS_VALUE_FORMAT';

/**
 * Checks the layout recorded at `location` against `wanted` (undefined: the default layout); an
 * empty store takes the wanted one. `isEmpty` is asked only when the two differ.
 */
export async function checkValueFormat(
  storeName: string,
  location: string,
  wanted: string | undefined,
  isEmpty: () => Promise<boolean>,
): Promise<void> {
  const file = join(location, VALUE_FORMAT_FILE);
  const recorded = await readFile(file, 'utf8').then(
    (text) => text.trim(),
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    },
  );
  if (recorded === wanted) return;
  if (!(await isEmpty())) throw new StoreFormatError(storeName, location, recorded, wanted);
  if (wanted === undefined) await rm(file, { force: true });
  else await writeFile(file, `${wanted}\n`);
}

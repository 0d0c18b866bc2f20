import type { KeyValue } from '../types.ts';

interface Head {
  readonly source: AsyncIterator<KeyValue>;
  entry: KeyValue;
}

/**
 * Merges iterators that each yield keys in ascending byte order into one ascending iterator.
 * Segments hold disjoint keys (a key's timestamp picks its segment), so no key is emitted twice.
 * A linear scan of the heads: a segmented store has only a handful of live segments.
 */
export async function* mergeAscending(
  sources: readonly AsyncIterator<KeyValue>[],
): AsyncIterableIterator<KeyValue> {
  const heads: Head[] = [];
  try {
    for (const source of sources) {
      const first = await source.next();
      if (first.done !== true) heads.push({ source, entry: first.value });
    }
    while (heads.length > 0) {
      let smallest = 0;
      for (let i = 1; i < heads.length; i++) {
        if (Buffer.compare(heads[i]!.entry.key, heads[smallest]!.entry.key) < 0) smallest = i;
      }
      const head = heads[smallest]!;
      yield head.entry;
      const next = await head.source.next();
      if (next.done === true) heads.splice(smallest, 1);
      else head.entry = next.value;
    }
  } finally {
    // Close every source, finished or not: a LevelDB iterator holds a snapshot until closed.
    await Promise.all(sources.map((source) => source.return?.()));
  }
}
